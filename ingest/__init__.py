"""Ingest: files → elements → heading-path chunks with metadata → embeddings → Qdrant."""
