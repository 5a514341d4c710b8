"""The knowledge base: reading source files, cutting them into passages, ingesting them."""
