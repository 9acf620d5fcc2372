"""Assessments: sessions, submissions and grading (the judge lives in assessments.judge)."""
