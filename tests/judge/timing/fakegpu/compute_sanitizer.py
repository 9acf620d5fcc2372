"""A stand-in compute-sanitizer front-end: starts the command after its options, waits for it,
then prints what the real tool prints, under the run's prefix. It reports an error when the
submission (solution.py in the working directory) carries `# fake-sanitizer: TOOL`, and
refuses the device when it carries `# fake-sanitizer: unsupported`."""
import subprocess
import sys


def main() -> int:
    args = sys.argv[1:]
    opts = {}
    while args and args[0].startswith("--"):
        opts[args[0]] = args[1]
        args = args[2:]
    tool, prefix = opts["--tool"], opts["--prefix"]
    status = subprocess.call(args)
    try:
        source = open("solution.py").read()
    except OSError:
        source = ""
    if "# fake-sanitizer: unsupported" in source:
        print(f"{prefix} Error: Device not supported", flush=True)
        return 1
    errors = 1 if f"# fake-sanitizer: {tool}" in source else 0
    if errors and tool == "racecheck":
        print(f"{prefix} Error: Race reported between Write access at block_sum+0x1c0")
        print(f"{prefix}     and Read access at block_sum+0x230 [64 hazards]")
        print(prefix)
        print(f"{prefix} RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)", flush=True)
    elif errors:
        print(f"{prefix} Invalid __global__ write of size 4 bytes")
        print(f"{prefix}     at k+0x90")
        print(f"{prefix}     by thread (255,0,0) in block (3,0,0)")
        print(f"{prefix}     Address 0x7f00 is out of bounds")
        print(prefix)
        print(f"{prefix} ERROR SUMMARY: 1 error", flush=True)
    elif tool != "racecheck":
        print(f"{prefix} ERROR SUMMARY: 0 errors", flush=True)
    else:
        print(f"{prefix} RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)", flush=True)
    if errors:
        return int(opts.get("--error-exitcode", 1))
    return status


if __name__ == "__main__":
    sys.exit(main())
