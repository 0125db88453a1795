"""The rater screens' templates live in their task type's package (``<package>/templates/``): a template
loader over the registered types' directories, and over annotation/task_types/templates/ for what several
types share."""

from pathlib import Path

from django.template.loaders.filesystem import Loader as FilesystemLoader

from . import REGISTRY


class TemplateLoader(FilesystemLoader):
    def get_dirs(self):
        return [*(t.directory / "templates" for t in REGISTRY.values()), Path(__file__).parent / "templates"]
