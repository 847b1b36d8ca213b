"""Build the standalone bundle, then run it the way a user would and report every result.

    python3 packaging/check_bundle.py              build (packaging/build.sh), then check
    python3 packaging/check_bundle.py --no-build   check the bundle already in dist/
    python3 packaging/check_bundle.py --runs 10    more GUI cold starts for the timing

Each check prints one PASS/FAIL line with its exit code and time; a summary and a closing
"N passed, N failed" line follow; the exit code is 1 if anything failed. A verb or a GUI that
does not exist yet is a failure, reported as such, never skipped.

The bundle runs in a scrubbed environment (PATH=/usr/bin:/bin, a fresh HOME, no PYTHON*
variables, an empty working folder, QT_QPA_PLATFORM=offscreen), and, where strace is installed,
a traced run proves it opens no file of the Python it was built with nor of the checkout.
The GUI is started through the bundle's smoke-test switch (RACKDESIGNER_SMOKE_TEST=1, see
packaging/launcher.py): it quits after its first frame and reports the time to that frame.
Standard library only: this script must run before anything is installed.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from licenses import missing_notices  # noqa: E402 - packaging/licenses.py, standard library
from system_libs import library_folder, system_library_problems  # noqa: E402 - standard library

DIST = ROOT / "dist"
BUNDLE = DIST / "rackdesigner"
EXE = BUNDLE / "rackdesigner"
REQUIRED_VERBS = ("validate", "simulate", "render")
SMOKE_RE = re.compile(r"rackdesigner-smoke: first frame after (\d+) ms")
METAINFO = "io.github.rackdesigner.RackDesigner.metainfo.xml"


@dataclass
class Result:
    name: str
    ok: bool
    detail: str
    seconds: float = 0.0
    returncode: int | None = None
    skipped: bool = False


@dataclass
class Checker:
    scratch: Path
    results: list[Result] = field(default_factory=list)

    def env(self, **extra: str) -> dict[str, str]:
        home = self.scratch / "home"
        runtime = self.scratch / "xdg-runtime"
        for folder in (home, runtime):
            folder.mkdir(mode=0o700, exist_ok=True)
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(home),
            "XDG_RUNTIME_DIR": str(runtime),
            "LANG": "C.UTF-8",
            "QT_QPA_PLATFORM": "offscreen",
        }
        env.update(extra)
        return env

    def run(self, argv: list[str], timeout: float = 300, **extra_env: str
            ) -> tuple[subprocess.CompletedProcess[str] | None, float]:
        cwd = self.scratch / "cwd"
        cwd.mkdir(exist_ok=True)
        start = time.perf_counter()
        try:
            proc = subprocess.run(argv, cwd=cwd, env=self.env(**extra_env), capture_output=True,
                                  text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return None, time.perf_counter() - start
        return proc, time.perf_counter() - start

    def record(self, result: Result) -> Result:
        self.results.append(result)
        mark = "SKIP" if result.skipped else "PASS" if result.ok else "FAIL"
        rc = "" if result.returncode is None else f" rc={result.returncode}"
        print(f"[{mark}] {result.name:<30} {result.seconds:6.2f}s{rc}  {result.detail}",
              flush=True)
        return result

    def command(self, name: str, args: list[str], expect_rc: int = 0,
                check: object = None, **extra_env: str) -> tuple[Result, str]:
        """Run the bundle with `args`; pass when the exit code matches and `check` agrees."""
        proc, seconds = self.run([str(EXE), *args], **extra_env)
        if proc is None:
            return self.record(Result(name, False, "timed out", seconds)), ""
        output = proc.stdout
        ok = proc.returncode == expect_rc
        detail = _first_line(proc.stdout) or _last_line(proc.stderr) or "(no output)"
        if ok and check is not None:
            problem = check(proc)  # type: ignore[operator]
            if problem:
                ok, detail = False, problem
        if not ok and proc.returncode != expect_rc:
            detail = f"expected exit {expect_rc}: {_last_line(proc.stderr) or detail}"
        return self.record(Result(name, ok, detail, seconds, proc.returncode)), output


def _first_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[0][:110] if lines else ""


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:110] if lines else ""


def source_version() -> str:
    text = (ROOT / "rackdesigner" / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__ = "([^"]+)"', text, re.M)
    return match.group(1) if match else "?"


def build() -> Result:
    print("== building: packaging/build.sh", flush=True)
    start = time.perf_counter()
    log = ROOT / "build" / "check-bundle-build.log"
    log.parent.mkdir(exist_ok=True)
    with log.open("w") as out:
        proc = subprocess.run(["bash", str(ROOT / "packaging" / "build.sh")], stdout=out,
                              stderr=subprocess.STDOUT, cwd=ROOT)
    seconds = time.perf_counter() - start
    tail = log.read_text(errors="replace").strip().splitlines()[-3:]
    return Result("build", proc.returncode == 0,
                  " | ".join(tail) if proc.returncode else f"log: {log}", seconds,
                  proc.returncode)


def verbs_from_help(text: str) -> set[str]:
    """The verbs argparse lists under 'positional arguments' in `--help`."""
    verbs = set()
    for line in text.splitlines():
        match = re.match(r"^    (\w[\w-]*)\s{2,}\S", line)
        if match:
            verbs.add(match.group(1))
    return verbs


def render_args(help_text: str, example: Path, out_dir: Path) -> list[str]:
    """Arguments for `render`, adapted to its --help: an output option if it has one."""
    for option in ("--output", "-o", "--out"):
        if re.search(rf"(^|[\s,\[]){re.escape(option)}([\s,=\]]|$)", help_text, re.M):
            return ["render", str(example), option, str(out_dir / "render.png")]
    return ["render", str(example)]


def check_traced(checker: Checker, name: str, args: list[str], forbidden: list[Path],
                 **extra_env: str) -> None:
    """Run under strace and fail if any file below `forbidden` was opened or executed.

    Only opens and execs count: the bundled libpython still stat()s the prefix it was built
    with while computing its paths, finds nothing it needs there, and reads nothing from it.
    """
    strace = shutil.which("strace")
    if not strace:
        checker.record(Result(name, False, "strace is not installed: cannot prove isolation"))
        return
    trace = checker.scratch / f"{name}.strace"
    proc, seconds = checker.run([strace, "-f", "-qq", "-e", "trace=open,openat,execve",
                                 "-o", str(trace), str(EXE), *args],
                                **extra_env)
    if proc is None:
        checker.record(Result(name, False, "timed out", seconds))
        return
    hits = []
    prefixes = tuple(str(p) + os.sep for p in forbidden)
    allowed = str(BUNDLE.resolve()) + os.sep
    for line in trace.read_text(errors="replace").splitlines():
        if "ENOENT" in line:
            continue
        match = re.search(r'"(/[^"]*)"', line)
        if match and match.group(1).startswith(prefixes) and not match.group(1).startswith(allowed):
            hits.append(match.group(1))
    ok = proc.returncode == 0 and not hits
    if hits:
        detail = f"{len(hits)} files from outside the bundle, e.g. {hits[0]}"
    elif proc.returncode:
        detail = f"rc={proc.returncode}: {_last_line(proc.stderr)}"
    else:
        detail = "opened nothing of the build Python (" + ", ".join(map(str, forbidden)) + ")"
    checker.record(Result(name, ok, detail, seconds, proc.returncode))


def drop_page_cache() -> bool:
    """Empty the kernel's page cache (root only) so the next start reads the bundle from disk."""
    try:
        subprocess.run(["sync"], check=False)
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    except OSError:
        return False
    return True


def check_sweep(checker: Checker, scratch: Path) -> None:
    """A two-point sweep on the default scheduler (local worker processes): a frozen program
    must hand its multiprocessing children to multiprocessing, not to its own CLI."""
    spec = scratch / "sweep.yaml"
    spec.write_text("schema_version: 1\ngenerate: superpod\nfixed: {system: dgx-h100}\n"
                    "grid: {sus: [1, 2]}\n", encoding="utf-8")
    out = scratch / "sweep.csv"

    def two_ok_rows(proc: subprocess.CompletedProcess[str]) -> str | None:
        if not out.exists():
            return "wrote no result file"
        rows = out.read_text(encoding="utf-8").splitlines()[1:]
        ok = [row for row in rows if ",ok," in f",{row},"]
        return None if len(rows) == 2 and len(ok) == 2 else f"{len(ok)} of {len(rows)} rows ok"

    checker.command("sweep (worker processes)", ["sweep", str(spec), "-o", str(out)],
                    check=two_ok_rows)


def check_gui_cold_disk(checker: Checker, example: Path | None) -> None:
    if not drop_page_cache():
        checker.record(Result("gui start, page cache dropped", True,
                              "needs root to drop the page cache", skipped=True))
        return
    proc, seconds = checker.run([str(EXE), *([str(example)] if example else [])], timeout=120,
                                RACKDESIGNER_SMOKE_TEST="1",
                                RACKDESIGNER_SMOKE_T0=f"{time.time():.6f}")
    match = SMOKE_RE.search(proc.stderr) if proc else None
    ok = proc is not None and proc.returncode == 0 and match is not None
    detail = (f"first frame after {match.group(1)} ms, bundle read from disk" if match
              else _last_line(proc.stderr) if proc else "timed out")
    checker.record(Result("gui start, page cache dropped", ok, detail, seconds,
                          proc.returncode if proc else None))


def check_gui_examples(checker: Checker, examples: list[Path]) -> None:
    """Open every bundled example once: each must reach its first frame."""
    if not examples:
        checker.record(Result("gui on every example", False, "no bundled example"))
        return
    timings, failures, total = [], [], 0.0
    for example in examples:
        proc, seconds = checker.run([str(EXE), str(example)], timeout=120,
                                    RACKDESIGNER_SMOKE_TEST="1",
                                    RACKDESIGNER_SMOKE_T0=f"{time.time():.6f}")
        total += seconds
        match = SMOKE_RE.search(proc.stderr) if proc else None
        if proc is None or proc.returncode != 0 or match is None:
            failures.append(f"{example.name}: "
                            + (_last_line(proc.stderr) if proc else "timed out"))
        else:
            timings.append(f"{example.stem} {match.group(1)} ms")
    if failures:
        detail = f"{len(failures)} of {len(examples)} failed, first: {failures[0]}"
    else:
        detail = "first frame: " + ", ".join(timings)
    checker.record(Result("gui on every example", not failures, detail, total))


def check_gui_xcb(checker: Checker, example: Path | None) -> None:
    """Start the GUI on a real X server (Xvfb): proves the bundled xcb platform plugin loads."""
    xvfb = shutil.which("Xvfb")
    name = "gui on X11 (Xvfb, xcb)"
    if xvfb is None:
        checker.record(Result(name, True, "Xvfb is not installed", skipped=True))
        return
    read_fd, write_fd = os.pipe()
    server = subprocess.Popen([xvfb, "-displayfd", str(write_fd), "-screen", "0", "1600x1000x24",
                               "-nolisten", "tcp"], pass_fds=(write_fd,),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    try:
        with os.fdopen(read_fd) as pipe:
            display = pipe.readline().strip()
        if not display:
            checker.record(Result(name, False, "Xvfb did not start"))
            return
        proc, seconds = checker.run(
            [str(EXE), *([str(example)] if example else [])], timeout=120,
            RACKDESIGNER_SMOKE_TEST="1", RACKDESIGNER_SMOKE_T0=f"{time.time():.6f}",
            QT_QPA_PLATFORM="xcb", DISPLAY=f":{display}")
        match = SMOKE_RE.search(proc.stderr) if proc else None
        ok = proc is not None and proc.returncode == 0 and match is not None
        detail = (f"first frame after {match.group(1)} ms on display :{display}" if match
                  else _last_line(proc.stderr) if proc else "timed out")
        checker.record(Result(name, ok, detail, seconds, proc.returncode if proc else None))
    finally:
        server.terminate()
        server.wait(timeout=30)


def check_gui(checker: Checker, example: Path | None, runs: int) -> None:
    args = [str(example)] if example else []
    shot = checker.scratch / "gui-first-frame.png"
    times: list[tuple[int, float]] = []
    for index in range(runs):
        proc, seconds = checker.run(
            [str(EXE), *args], timeout=120, RACKDESIGNER_SMOKE_TEST="1",
            RACKDESIGNER_SMOKE_T0=f"{time.time():.6f}",
            **({"RACKDESIGNER_SMOKE_SCREENSHOT": str(shot)} if index == 0 else {}))
        if proc is None:
            checker.record(Result("gui (offscreen)", False, "timed out after 120 s", seconds))
            return
        match = SMOKE_RE.search(proc.stderr)
        if index == 0:
            ok = proc.returncode == 0 and match is not None
            if ok:
                detail = f"first frame after {match.group(1)} ms"  # type: ignore[union-attr]
                if "icon set" not in proc.stderr:
                    ok, detail = False, "the window has no icon (resources/icons not bundled?)"
            else:
                detail = _last_line(proc.stderr) or "no first-frame line on stderr"
            warnings = [line for line in proc.stderr.splitlines()
                        if line.strip() and not line.startswith("rackdesigner-smoke:")]
            if ok and warnings:
                detail += f"; stderr: {warnings[0][:80]}"
            checker.record(Result("gui (offscreen)", ok, detail, seconds, proc.returncode))
            if not ok:
                return
            if not shot.exists():
                checker.record(Result("gui screenshot", False, "no screenshot was saved"))
        if match:
            times.append((int(match.group(1)), seconds * 1000))
    if times:
        frames = [t for t, _ in times]
        walls = [w for _, w in times]
        detail = (f"{len(times)} runs: first frame min {min(frames)} / median "
                  f"{statistics.median(frames):.0f} / max {max(frames)} ms; process wall "
                  f"(start to exit) median {statistics.median(walls):.0f} ms; runs: "
                  + " ".join(str(t) for t in frames))
        checker.record(Result("gui cold start", True, detail))


def check_install(checker: Checker, version: str, archive: Path | None) -> None:
    """Unpack the archive elsewhere, install it into a temporary prefix, run it, remove it."""
    if archive is None:
        checker.record(Result("install.sh", False, "no archive to install from"))
        return
    unpacked = checker.scratch / "unpacked"
    unpacked.mkdir()
    untar, _ = checker.run(["tar", "-xzf", str(archive), "-C", str(unpacked)])
    if untar is None or untar.returncode != 0:
        checker.record(Result("install.sh", False, f"could not unpack {archive.name}"))
        return
    prefix = checker.scratch / "prefix"
    proc, seconds = checker.run(["bash", str(unpacked / "rackdesigner" / "install.sh"),
                                 "--prefix", str(prefix)])
    installed = prefix / "bin" / "rackdesigner"
    if proc is None or proc.returncode != 0 or not installed.exists():
        detail = "install.sh failed" + (f": {_last_line(proc.stderr)}" if proc else "")
        checker.record(Result("install.sh", False, detail, seconds))
        return
    run, _ = checker.run([str(installed), "--version"])
    problems = []
    if run is None or run.stdout.strip() != f"rackdesigner {version}":
        problems.append("installed command does not report the version")
    desktop = prefix / "share" / "applications" / "io.github.rackdesigner.RackDesigner.desktop"
    if f"Exec={installed} %f" not in desktop.read_text():
        problems.append("desktop entry does not point at the installed command")
    for tool, path in (("desktop-file-validate", desktop),
                       ("appstreamcli", prefix / "share" / "metainfo" / METAINFO)):
        exe = shutil.which(tool)
        if exe is None:  # optional tools (README): their check is skipped, and named as such
            checker.record(Result(f"install.sh: {tool}", True, f"{tool} is not installed",
                                  skipped=True))
            continue
        argv = [exe, str(path)] if tool != "appstreamcli" else [exe, "validate", "--no-net",
                                                                str(path)]
        validated, _ = checker.run(argv)
        if validated is None or validated.returncode != 0:
            problems.append(f"{tool}: {_last_line(validated.stdout if validated else '')}")
    icon = (prefix / "share" / "icons" / "hicolor" / "256x256" / "apps"
            / "io.github.rackdesigner.RackDesigner.png")  # named for the app id
    if not icon.exists():
        problems.append("256px icon not installed")
    removed, _ = checker.run(["bash", str(installed.resolve().parent / "install.sh"),
                              "--prefix", str(prefix), "--uninstall"])
    leftovers = [p for p in prefix.rglob("*")  # desktop/icon caches are the system's, not ours
                 if (p.is_file() or p.is_symlink()) and p.suffix != ".cache"]
    if removed is None or removed.returncode != 0 or leftovers:
        problems.append(f"uninstall left {len(leftovers)} files")
    detail = "; ".join(problems) or ("unpacked the archive, installed it into a temporary "
                                     "prefix, ran it, checked the desktop entry and icon, "
                                     "uninstalled cleanly")
    checker.record(Result("install.sh", not problems, detail, seconds))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-build", action="store_true", help="check the existing dist/")
    parser.add_argument("--runs", type=int, default=5, help="GUI cold starts to time")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("--drop-caches", action="store_true",
                        help="(root) also time one GUI start after emptying the page cache")
    options = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="rackdesigner-check-"))
    checker = Checker(scratch)
    version = source_version()
    print(f"== RackDesigner bundle check (source version {version}), scratch {scratch}")

    if not options.no_build and not checker.record(build()).ok:
        return summarize(checker, None)
    if not EXE.exists():
        checker.record(Result("bundle exists", False, f"{EXE} is missing; build it first"))
        return summarize(checker, None)

    archives = sorted(DIST.glob(f"rackdesigner-{version}-linux-*.tar.gz"))
    checker.record(Result("archive", bool(archives),
                          f"{archives[0].name} ({_du(archives[0])})" if archives
                          else f"no dist/rackdesigner-{version}-linux-*.tar.gz"))

    doc_dir = BUNDLE / "share" / "doc" / "rackdesigner"
    problems = missing_notices(doc_dir)
    problems += system_library_problems(library_folder(BUNDLE), doc_dir)
    checker.record(Result("license and notices", not problems, "; ".join(problems) or
                          "LICENSE, THIRD-PARTY-NOTICES.md and a license text for CPython, "
                          "Qt/PySide6, every bundled distribution and every library of the "
                          "build machine; no GNU readline, no GTK"))

    checker.command("--version", ["--version"], check=lambda p: None
                    if p.stdout.strip() == f"rackdesigner {version}"
                    else f"printed {p.stdout.strip()!r}, expected 'rackdesigner {version}'")
    _, help_text = checker.command("--help", ["--help"])
    verbs = verbs_from_help(help_text)
    missing = [v for v in REQUIRED_VERBS if v not in verbs]
    checker.record(Result("verbs present", not missing,
                          f"missing: {', '.join(missing)}; has: {', '.join(sorted(verbs))}"
                          if missing else "has: " + ", ".join(sorted(verbs))))
    checker.command("catalog", ["catalog"], check=lambda p: None
                    if len(p.stdout.splitlines()) > 30 else "fewer than 30 catalog lines")

    def examples_inside_bundle(proc: subprocess.CompletedProcess[str]) -> str | None:
        paths = [Path(line) for line in proc.stdout.split()]
        if not paths:
            return "no example layouts are bundled"
        outside = [p for p in paths if not p.resolve().is_relative_to(BUNDLE.resolve())]
        if outside:
            return f"{outside[0]} is not inside the bundle"
        return None

    _, listing = checker.command("examples", ["examples"], check=examples_inside_bundle)
    examples = [Path(line) for line in listing.split()]
    example = examples[0] if examples else None
    if example is None:
        for verb in REQUIRED_VERBS:
            checker.record(Result(verb, False, "no bundled example to run it on"))
    else:
        checker.command("validate (all)", ["validate", *map(str, examples)])
        if "simulate" not in verbs:
            checker.record(Result(f"simulate {example.name}", False,
                                  "the simulate verb is not in this build"))
        else:
            checker.command(f"simulate {example.name}", ["simulate", str(example)],
                            check=lambda p: None if p.stdout.strip() else "printed nothing")
        out_dir = scratch / "render"
        out_dir.mkdir()
        if "render" not in verbs:
            checker.record(Result(f"render {example.name}", False,
                                  "the render verb is not in this build"))
        else:
            render_help = checker.run([str(EXE), "render", "--help"])[0]
            args = render_args(render_help.stdout if render_help else "", example, out_dir)
            checker.command(f"render {example.name}", args, check=lambda p: None
                            if any(out_dir.iterdir()) or p.stdout.strip()
                            else "produced no file and no output")
    if "generate" in verbs:
        checker.command("generate --help", ["generate", "--help"])
    if "sweep" in verbs:
        check_sweep(checker, scratch)

    if options.drop_caches:
        check_gui_cold_disk(checker, example)
    check_gui(checker, example, max(1, options.runs))
    check_gui_examples(checker, examples)
    check_gui_xcb(checker, example)

    forbidden = build_python_paths(sys.base_prefix, sys.prefix, _python_folders(),
                                   [ROOT, *_build_venv()])
    traced_args = ["validate", str(example)] if example else ["catalog"]
    check_traced(checker, "isolated (validate)", traced_args, forbidden)
    check_traced(checker, "isolated (gui)", [str(example)] if example else [], forbidden,
                 RACKDESIGNER_SMOKE_TEST="1")
    check_install(checker, version, archives[0] if archives else None)

    screenshot = scratch / "gui-first-frame.png"
    if screenshot.exists():
        kept = ROOT / "build" / "gui-first-frame.png"
        shutil.copy2(screenshot, kept)
        print(f"GUI first frame saved as {kept}")
    if not options.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    return summarize(checker, BUNDLE)


#: prefixes shared with the whole system: a Python installed there (/usr/bin/python3) does not
#: own them, only its own folders below them (/usr/lib/python3.11, its site-packages)
SYSTEM_PREFIXES = (Path("/"), Path("/usr"), Path("/usr/local"))


def build_python_paths(base_prefix: str, prefix: str, python_folders: list[str],
                       others: list[Path]) -> list[Path]:
    """The folders a bundle must not read from: the building Python's prefixes — or, when a
    prefix is the system's own (/usr for /usr/bin/python3), only that Python's folders under it
    (standard library, lib-dynload, site- and dist-packages): the bundle rightly opens the
    system's C library, fonts and X libraries under /usr — and `others` (checkout, venv)."""
    found = set()
    for folder in (base_prefix, prefix):
        path = Path(folder).resolve()
        if path in SYSTEM_PREFIXES:
            found.update(Path(f).resolve() for f in python_folders
                         if f and Path(f).resolve().is_relative_to(path)
                         and Path(f).resolve() not in SYSTEM_PREFIXES)
        else:
            found.add(path)
    return sorted(found | {p.resolve() for p in others})


def _python_folders() -> list[str]:
    """This Python's own folders: sysconfig's library paths and its sys.path entries."""
    import sysconfig

    paths = sysconfig.get_paths()
    return [*(paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths),
            *(p for p in sys.path if p and Path(p).is_dir())]


def _build_venv() -> list[Path]:
    venv = Path(os.environ.get("RACKDESIGNER_BUILD_VENV", ROOT / "build" / "bundle-venv"))
    return [venv.resolve()] if venv.exists() else []


def _du(path: Path) -> str:
    proc = subprocess.run(["du", "-sh", str(path)], capture_output=True, text=True)
    return proc.stdout.split()[0] if proc.returncode == 0 else "?"


def summarize(checker: Checker, bundle: Path | None) -> int:
    skipped = sum(r.skipped for r in checker.results)
    passed = sum(r.ok and not r.skipped for r in checker.results)
    failed = len(checker.results) - passed - skipped
    print("\n== summary")
    if bundle is not None and bundle.exists():
        print(f"bundle size: {_du(bundle)} ({bundle})")
    for result in checker.results:
        if not result.ok and not result.skipped:
            print(f"  FAILED {result.name}: {result.detail}")
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
