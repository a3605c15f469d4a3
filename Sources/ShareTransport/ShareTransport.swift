// ShareTransport: see docs/ARCHITECTURE.md.
