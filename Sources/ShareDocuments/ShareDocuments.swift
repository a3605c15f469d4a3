// ShareDocuments: see docs/ARCHITECTURE.md.
