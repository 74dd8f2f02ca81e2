"""Pure code: no JVM, no cluster."""
