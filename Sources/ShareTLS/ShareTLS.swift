// ShareTLS: see docs/ARCHITECTURE.md.
