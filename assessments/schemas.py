"""Request and response shapes for tasks, runs, submissions, assessments and profiles."""
from marshmallow import Schema, fields, validate

from web.fields import UtcDateTime

BACKENDS = ("cpu", "cuda")
LANGUAGES = ("python", "cpp", "verilog", "yaml")
MAX_SOURCE_CHARS = 64 * 1024
SLUG = validate.Length(min=1, max=80)


class SkillRefSchema(Schema):
    id = fields.String()
    name = fields.String()
    category = fields.String(allow_none=True)


class TaskSummarySchema(Schema):
    slug = fields.String()
    title = fields.String()
    difficulty = fields.String()
    summary = fields.String()
    skills = fields.List(fields.Nested(SkillRefSchema))
    tracks = fields.List(fields.String())
    kind = fields.String(metadata={"description": "cupy, verilog (a design), cocotb (a testbench), "
                                                  "python (a function, some also in C++) or promql (rules)"})
    languages = fields.List(fields.String(), metadata={
        "description": "what a submission may be written in, the default first (`language` of a run)"})
    kind_label = fields.String()
    language = fields.String(metadata={"description": "what a submission is written in"})


class TaskArgSchema(Schema):
    name = fields.String()
    role = fields.String(metadata={"description": "in, out or scalar"})
    dtype = fields.String()
    shape = fields.String(allow_none=True)


class SampleSchema(Schema):
    name = fields.String()
    sizes = fields.Dict(keys=fields.String(), values=fields.Raw(), metadata={
        "description": "the test's sizes and knobs (numbers, or names such as a policy)"})


class PortSchema(Schema):
    name = fields.String()
    direction = fields.String(metadata={"description": "input or output"})
    width = fields.String(metadata={"description": "as the statement writes it: 1, WIDTH, $clog2(DEPTH)+1"})
    range = fields.String(metadata={"description": "the packed range to declare, e.g. [WIDTH-1:0]"})
    note = fields.String()


class TaskSchema(TaskSummarySchema):
    signatures = fields.Dict(keys=fields.String(), values=fields.String(), metadata={
        "description": "function tasks: the signature per language (python, cpp)"})
    function = fields.String(metadata={"description": "function tasks: the name to define"})
    module = fields.String(metadata={"description": "design and testbench tasks: the module's name"})
    clock = fields.String(metadata={"description": "design and testbench tasks: the clock port"})
    ports = fields.List(fields.Nested(PortSchema), metadata={
        "description": "design and testbench tasks: the module's ports"})
    parameters = fields.Dict(keys=fields.String(), values=fields.Integer(), metadata={
        "description": "design tasks: the parameters' defaults; testbench tasks: the design's"})
    synthesized = fields.Dict(keys=fields.String(), values=fields.Integer(), metadata={
        "description": "design tasks: the parameters the area and depth score is synthesized with"})
    statement = fields.String(metadata={"description": "Markdown"})
    signature = fields.String()
    args = fields.List(fields.Nested(TaskArgSchema))
    check = fields.String()
    tolerance = fields.Dict()
    samples = fields.List(fields.Nested(SampleSchema))
    benchmark = fields.Dict(keys=fields.String(), values=fields.Integer(), metadata={
        "description": "the size timed on a GPU (cuda backend) and estimated for an H100 (cpu backend)"})
    tests = fields.Dict(keys=fields.String(), values=fields.Integer(),
                        metadata={"description": "number of hidden tests per backend"})
    styles = fields.List(fields.String())
    starters = fields.Dict(keys=fields.String(), values=fields.String(),
                           metadata={"description": "starter code per style"})


class TaskListSchema(Schema):
    items = fields.List(fields.Nested(TaskSummarySchema))


class LeaderboardQuerySchema(Schema):
    backend = fields.String(load_default="cuda", validate=validate.OneOf(BACKENDS))
    gpu = fields.String(validate=validate.Length(max=120))
    by = fields.String(validate=validate.OneOf(("area", "depth", "mutants", "score")), metadata={
        "description": "design tasks: area (default) or depth; testbench tasks: mutants; "
                       "function and rules tasks: score"})


class LeaderboardEntrySchema(Schema):
    rank = fields.Integer()
    user = fields.String()
    submission_id = fields.Integer()
    median_ms = fields.Float(allow_none=True, metadata={"description": "measured (cuda backend)"})
    estimated_ms = fields.Float(allow_none=True, metadata={
        "description": "estimated for an H100 from the emulator's counters (cpu backend)"})
    device = fields.String(allow_none=True)
    score = fields.Float(allow_none=True)
    accepted_at = UtcDateTime()
    public = fields.Boolean()
    source = fields.String(allow_none=True, metadata={"description": "present when made public"})
    cells = fields.Integer(allow_none=True, metadata={"description": "design tasks: Yosys cells"})
    depth = fields.Integer(allow_none=True, metadata={
        "description": "design tasks: cells on the longest combinational path"})
    mutants_caught = fields.Integer(allow_none=True, metadata={"description": "testbench tasks"})
    mutants = fields.Integer(allow_none=True, metadata={"description": "testbench tasks: mutants run"})
    language = fields.String(allow_none=True, metadata={"description": "function tasks: python or cpp"})
    seconds = fields.Float(allow_none=True, metadata={
        "description": "function tasks: the time on the largest hidden input"})
    quality = fields.Float(allow_none=True, metadata={
        "description": "function tasks with a quality measure: the answer's quality"})


class LeaderboardSchema(Schema):
    task = fields.String()
    backend = fields.String()
    by = fields.String(metadata={"description": "design and testbench tasks: how the board ranks"})
    boards = fields.List(fields.String(), metadata={"description": "the rankings `by` may ask for"})
    device = fields.String(allow_none=True)
    devices = fields.List(fields.String())
    entries = fields.List(fields.Nested(LeaderboardEntrySchema))


class RunRequestSchema(Schema):
    task = fields.String(required=True, validate=SLUG)
    source = fields.String(required=True, validate=validate.Length(min=1, max=MAX_SOURCE_CHARS))
    backend = fields.String(validate=validate.OneOf(BACKENDS))
    assessment_id = fields.Integer(strict=True, validate=validate.Range(min=1, max=2**31 - 1))
    language = fields.String(validate=validate.OneOf(LANGUAGES), metadata={
        "description": "what the source is written in, where the task takes several (its "
                       "`languages`; the first when left out)"})


class SubmissionRequestSchema(RunRequestSchema):
    pass


class AcceptedSchema(Schema):
    id = fields.Integer()
    status = fields.String()


class SubmissionSummarySchema(Schema):
    id = fields.Integer()
    kind = fields.String()
    task = fields.String()
    backend = fields.String()
    language = fields.String(allow_none=True, metadata={
        "description": "what the source is written in, where its task takes several"})
    assessment_id = fields.Integer(allow_none=True)
    status = fields.String(metadata={"description": "queued, running, done or failed"})
    verdict = fields.String(allow_none=True, metadata={"description": "the judge's verdict when done"})
    score = fields.Float(allow_none=True)
    message = fields.String(allow_none=True)
    public = fields.Boolean()
    created_at = UtcDateTime()
    started_at = UtcDateTime(allow_none=True)
    finished_at = UtcDateTime(allow_none=True)


_NUM = {"type": "number", "nullable": True}
# report.profile: the cpu backend's estimate (assessments/judge/kinds/cupy/perfmodel.py). Other
# tools read estimated_us, bound and hints by these names.
PROFILE_JSON_SCHEMA = {
    "type": "object", "nullable": True,
    "description": "cpu backend only: the time an H100 SXM would take at the task's benchmark size, "
                   "estimated from the emulator's counters (never measured)",
    "properties": {
        "estimated": {"type": "boolean", "description": "always true: an estimate, not a measurement"},
        "device": {"type": "string", "example": "H100 SXM (estimated)"},
        "dims": {"type": "object", "additionalProperties": {"type": "integer"},
                 "description": "the benchmark size estimated (the cuda backend's)"},
        "estimated_us": {**_NUM, "description": "estimated H100 time of the largest benchmark "
                                                "size, in microseconds; null when no estimate"},
        "bound": {"type": "string", "nullable": True,
                  "description": "what limits it: DRAM, L2, L1, shared memory, issue, FP32, FP64, "
                                 "FP16, atomics, latency/occupancy, too little parallelism, launch, "
                                 "host copies"},
        "roofline_fraction": {**_NUM, "description": "the task's roofline time over the estimate "
                                                     "(the performance points' basis)"},
        "floor_us": _NUM,
        "eligible": {"type": "boolean", "description": "false: no performance points (see error or hints)"},
        "hints": {"type": "array", "description": "what to change, most costly first",
                  "items": {"type": "object", "properties": {
                      "cost_us": {**_NUM, "description": "estimated time the issue costs"},
                      "text": {"type": "string"}}}},
        "lines": {"type": "array", "description": "counters per source line (launches summed)",
                  "items": {"type": "object", "properties": {
                      "line": {"type": "integer", "nullable": True,
                               "description": "line of the submitted file, where the kernel's source is found in it"},
                      "kernel_line": {"type": "integer"}, "text": {"type": "string"},
                      "warp_inst": {"type": "number"}, "fp32": {"type": "number"},
                      "fp16": {"type": "number", "description": "half-precision operations"},
                      "thread_inst": {"type": "number"}, "lane_inst": {"type": "number"},
                      "lanes_active": {**_NUM, "description": "thread_inst / lane_inst: the share "
                                       "of a warp's lanes that ran the line (1: no divergence)"},
                      "divergent_warps": {"type": "number",
                                          "description": "warps whose lanes took different paths here"},
                      "global_requests": {"type": "number"}, "sectors": {"type": "number"},
                      "ideal_sectors": {"type": "number"}, "coalescing": _NUM,
                      "shared_requests": {"type": "number"}, "wavefronts": {"type": "number"},
                      "ideal_wavefronts": {"type": "number"}, "bank_conflict_ways": _NUM,
                      "atomics": {"type": "number"}, "barriers": {"type": "number"},
                      "warp_ops": {"type": "number"}}}},
        "launches": {"type": "array", "items": {"type": "object"},
                     "description": "each kernel launch, array operation and host copy with its estimate"},
        "notes": {"type": "array", "items": {"type": "string"}},
        "error": {"type": "string", "description": "why there is no estimate"},
    },
}


class SubmissionSchema(SubmissionSummarySchema):
    source = fields.String()
    report = fields.Dict(allow_none=True, metadata={
        "description": "the judge's report when done; on the cpu backend `profile` holds the "
                       "estimated H100 time, its bound, hints and counters per source line",
        "properties": {"profile": PROFILE_JSON_SCHEMA}})


class SubmissionListQuerySchema(Schema):
    task = fields.String(validate=SLUG)


class VisibilitySchema(Schema):
    public = fields.Boolean(required=True)


class AssessmentCreateSchema(Schema):
    job_id = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=2**31 - 1))
    tasks = fields.List(fields.String(validate=SLUG), validate=validate.Length(max=10),
                        metadata={"description": "task slugs; omitted or empty: suggested from the "
                                                 "job's required skills"})
    time_limit_minutes = fields.Integer(required=True, strict=True,
                                        validate=validate.Range(min=5, max=7 * 24 * 60))
    backend = fields.String(load_default="cpu", validate=validate.OneOf(BACKENDS))
    title = fields.String(validate=validate.Length(min=1, max=200))


class InvitationOutSchema(Schema):
    id = fields.Integer()
    email = fields.String()
    created_at = UtcDateTime()
    expires_at = UtcDateTime()
    emailed = fields.Boolean()
    started_at = UtcDateTime(allow_none=True)
    deadline = UtcDateTime(allow_none=True)
    candidate_id = fields.Integer(allow_none=True)


class AssessmentSchema(Schema):
    id = fields.Integer()
    title = fields.String()
    job_id = fields.Integer(allow_none=True)
    organisation = fields.String(attribute="organisation_name")
    tasks = fields.List(fields.String())
    time_limit_minutes = fields.Integer()
    backend = fields.String()
    created_at = UtcDateTime()


class AssessmentDetailSchema(AssessmentSchema):
    invitations = fields.List(fields.Nested(InvitationOutSchema),
                              metadata={"description": "recruiters only"})
    started_at = UtcDateTime(allow_none=True, metadata={"description": "candidates: your start"})
    deadline = UtcDateTime(allow_none=True, metadata={"description": "candidates: your deadline"})


class InviteRequestSchema(Schema):
    email = fields.Email(required=True, validate=validate.Length(max=254))


class InviteResultSchema(Schema):
    id = fields.Integer()
    email = fields.String()
    token = fields.String(metadata={"description": "shown once; only its hash is stored"})
    url = fields.String()
    emailed = fields.Boolean()
    expires_at = UtcDateTime()


class AcceptResultSchema(Schema):
    assessment_id = fields.Integer()
    started_at = UtcDateTime()
    deadline = UtcDateTime()


class InvitationPreviewSchema(Schema):
    assessment_id = fields.Integer()
    title = fields.String()
    organisation = fields.String()
    tasks = fields.Integer()
    time_limit_minutes = fields.Integer()
    used = fields.Boolean()
    expired = fields.Boolean()


class SuggestQuerySchema(Schema):
    job_id = fields.Integer(required=True, validate=validate.Range(min=1, max=2**31 - 1))


class SuggestionSchema(Schema):
    job_id = fields.Integer()
    tasks = fields.List(fields.String())


class ResultsQuerySchema(Schema):
    format = fields.String(load_default="json", validate=validate.OneOf(["json", "csv"]))


class TaskResultSchema(Schema):
    task = fields.String()
    attempts = fields.Integer()
    pending = fields.Integer()
    submission_id = fields.Integer(allow_none=True)
    verdict = fields.String(allow_none=True)
    score = fields.Float(allow_none=True)
    median_ms = fields.Float(allow_none=True)
    submitted_at = UtcDateTime(allow_none=True)
    minutes_after_start = fields.Float(allow_none=True)
    flags = fields.List(fields.String(), metadata={"description": "for the recruiter's review"})
    similar = fields.List(fields.Dict(), metadata={
        "description": "nearly the same as an earlier submission by another candidate: "
                       "other_id, similarity, cleared (a recruiter looked and cleared it; until "
                       "then the skills it alone shows are held back), readable (you may open it)"})


class CandidateResultSchema(Schema):
    candidate_id = fields.Integer()
    email = fields.String()
    started_at = UtcDateTime()
    deadline = UtcDateTime()
    total_score = fields.Float()
    tasks = fields.List(fields.Nested(TaskResultSchema))


class ResultsSchema(Schema):
    assessment_id = fields.Integer()
    tasks = fields.List(fields.String())
    invited = fields.Integer()
    started = fields.Integer()
    candidates = fields.List(fields.Nested(CandidateResultSchema))
