"""Read paths every app shares."""
