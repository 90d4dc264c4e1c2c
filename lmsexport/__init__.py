"""lmsexport: one YAML question bank -> QTI 2.1 packages, Moodle GIFT and HTML quizzes."""

__version__ = "0.1.0"
