"""Projects, criteria, items and outputs, assignment, judgments, gold answers, import and rater pages."""
