"""The pieces of a dataset export that need no database: table writers (JSONL, CSV, Parquet), the
README data card, the HEDS 3.0 datasheet and the agreement trend chart."""
