"""The agent under test: observation in, one typed decision out, from any backend."""
