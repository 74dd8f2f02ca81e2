"""Screens from fixed or recorded data: no JVM."""
