"""The documentation site (docs/): every code block runs, the site builds with Sphinx with
warnings as errors, and a real headless browser renders its pages and its search.

Blocks preceded by ``<!-- not run: REASON -->`` are skipped with that reason (installs,
the Sphinx build itself, which the last test does). The browser is Debian's chromium
with its chromedriver, driven by selenium; screenshots of the index and of a function
page are kept in the build folder, ``docs/_build/html/_screenshots/``.
"""
import functools
import http.server
import pathlib
import re
import shutil
import subprocess
import sys
import threading

import pytest

from cbuild import build_c_program
from conftest import package_env

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
BUILD = DOCS / "_build" / "html"
PAGES = sorted(p for p in DOCS.rglob("*.md")
               if "_build" not in p.parts and "seeds" not in p.parts and p.name != "README.md")
BLOCK = re.compile(r"(?:<!-- not run: (?P<reason>[^>]*?) -->\n)?```(?P<lang>\w+)\n(?P<code>.*?)```",
                   re.S)


def _blocks(lang):
    found = []
    for page in PAGES:
        for k, match in enumerate(m for m in BLOCK.finditer(page.read_text())
                                  if m["lang"] == lang):
            marks = [pytest.mark.skip(reason=match["reason"])] if match["reason"] else []
            found.append(pytest.param(match["code"], id=f"{page.relative_to(DOCS)}-{k + 1}",
                                      marks=marks))
    return found


pytestmark = pytest.mark.skipif(not PAGES, reason="docs/ is not beside the tests (installed tests)")


@pytest.mark.parametrize("code", _blocks("python"))
def test_python_block_runs_alone(code, tmp_path):
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=package_env(),
                            capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("code", _blocks("console"))
def test_console_block_runs(code, tmp_path):
    for command in re.findall(r"^\$ (.*)$", code, re.M):
        result = subprocess.run(command, shell=True, cwd=tmp_path, env=package_env(),
                                capture_output=True, text=True, timeout=180)
        assert result.returncode == 0, f"{command}: {result.stderr}"


@pytest.mark.parametrize("code", _blocks("cpp"))
def test_cpp_block_compiles_against_the_headers_and_runs(code, tmp_path):
    source = tmp_path / "example.cpp"
    source.write_text(code)
    program = build_c_program(source, cxx=True)
    result = subprocess.run([str(program)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    expected = re.search(r"/\* ([\d ]+) \*/", code)
    if expected:
        assert result.stdout.split() == expected.group(1).split()


@functools.lru_cache(maxsize=None)
def _built_site():
    """Builds the site once per session into docs/_build/html (warnings are errors)."""
    result = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q",
                             str(DOCS), str(BUILD)], cwd=ROOT, env=package_env(),
                            capture_output=True, text=True, timeout=1200)
    return result


@pytest.mark.timeout(1500)
def test_site_builds_without_warnings_and_renders_in_a_browser():
    pytest.importorskip("sphinx", reason="Sphinx is not installed (the docs extra)")
    webdriver = pytest.importorskip("selenium.webdriver",
                                    reason="selenium is not installed (the docs extra)")
    result = _built_site()
    assert result.returncode == 0, result.stderr[-5000:]
    assert "WARNING" not in result.stderr and "ERROR" not in result.stderr
    generated = BUILD / "api" / "generated"
    assert (generated / "npuarray.matmul.html").exists()
    import npuarray
    for name in npuarray.__all__:  # every public name has a page
        assert (generated / f"npuarray.{name}.html").exists(), name

    browser, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not browser or not driver_path:
        pytest.skip("no headless browser: Debian's chromium and chromium-driver are not installed")
    with _serve(BUILD) as base, _browser(webdriver, browser, driver_path) as driver:
        shots = BUILD / "_screenshots"
        shots.mkdir(exist_ok=True)
        driver.get(f"{base}/index.html")
        assert "npuarray" in driver.title
        assert "to Ascend what CuPy" in driver.find_element("tag name", "body").text
        driver.save_screenshot(str(shots / "index.png"))

        driver.get(f"{base}/api/generated/npuarray.matmul.html")
        body = driver.find_element("tag name", "body").text
        assert "aclnnMatmul" in body and "numpy.matmul" in body
        links = [a.get_attribute("href") for a in driver.find_elements("tag name", "a")]
        assert any(link and link.endswith("reference/generated/numpy.matmul.html")
                   for link in links)
        driver.save_screenshot(str(shots / "matmul.png"))

        driver.get(f"{base}/search.html?q=matmul")
        _wait_for(driver, lambda: "npuarray.matmul" in driver.find_element(
            "id", "search-results").text)

        errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        assert not errors, errors
    for shot in ("index.png", "matmul.png"):
        assert (shots / shot).stat().st_size > 10_000  # a rendered page, not a blank one


def _wait_for(driver, condition, seconds=60):
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(driver, seconds).until(lambda _: condition())


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class _serve:
    """The built site over HTTP on 127.0.0.1 (a free port), as a reader's browser gets it."""

    def __init__(self, folder):
        handler = functools.partial(_Quiet, directory=str(folder))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


class _browser:
    def __init__(self, webdriver, browser, driver_path):
        options = webdriver.ChromeOptions()
        options.binary_location = browser
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1280,1024"):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = webdriver.ChromeService(executable_path=driver_path)
        self.driver = webdriver.Chrome(options=options, service=service)

    def __enter__(self):
        return self.driver

    def __exit__(self, *exc):
        self.driver.quit()
