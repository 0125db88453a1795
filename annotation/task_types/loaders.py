"""The rater screens' templates live in their task type's package (``<package>/templates/``): a template
loader over the registered types' directories."""

from django.template.loaders.filesystem import Loader as FilesystemLoader

from . import REGISTRY


class TemplateLoader(FilesystemLoader):
    def get_dirs(self):
        return [t.directory / "templates" for t in REGISTRY.values()]
