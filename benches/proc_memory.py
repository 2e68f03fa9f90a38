"""Reading this process's memory counters (Linux /proc), shared by the memory benches."""


def status_kb(field):
    """A field of /proc/self/status in kB (`VmRSS`, `VmHWM`); 0 where unavailable."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0
