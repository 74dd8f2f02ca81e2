"""Property-based and fuzz tests of the parsers and decoders: no JVM."""
