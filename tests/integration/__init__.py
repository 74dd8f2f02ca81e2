"""Against real clusters (KRaft 4.1, ZooKeeper-mode 3.9, Spark) started by tests/conftest.py."""
