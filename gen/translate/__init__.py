"""`gen translate`: labeled records into another language, spans carried over by tags."""
