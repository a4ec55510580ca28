"""The sandbox's HTTP handlers, one module per resource; each module's ``routes()`` lists its paths."""
