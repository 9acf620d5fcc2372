"""Stand-ins for the local queue's grading-process entry, importable by spawned processes."""
import os
from pathlib import Path

from assessments import grading


def die_on_first_call(database_url, submission_id, judge_options=None):
    """The first grading process to take a submission dies mid-grade (after claiming it), as a
    process killed by the kernel would; the next one grades it normally."""
    marker = Path(os.environ["KP_TEST_DIE_MARKER"])
    if not marker.exists():
        marker.write_text(str(os.getpid()))
        grading.claim(grading.engines.engine_for(database_url), submission_id)
        os._exit(9)
    return grading.grade_in_process(database_url, submission_id, judge_options)


def report_pid(database_url, submission_id, judge_options=None):
    status, stored = grading.grade_in_process(database_url, submission_id, judge_options)
    Path(os.environ["KP_TEST_PID_DIR"], str(submission_id)).write_text(str(os.getpid()))
    return status, stored
