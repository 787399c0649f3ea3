"""The export formats: each module declares its `ExportFormat`s (gen.export.base) and is
found by gen.export.registry; adding a format is adding a module here (docs/export.md)."""
