// The ticket of each sample project under fixtures/projects: a ticket-sized change, the files
// it touches (the builder's edits, and the branch a review chain reviews), the project's own
// test command and what its output shows when the change's tests pass.

/** A change to one file: `find` replaced by `replace` (an Edit), or a whole new file (a Write). */
export type FileChange =
  | { path: string; find: string; replace: string }
  | { path: string; content: string };

export type ProjectName =
  | "node-lock"
  | "node-nolock"
  | "python-unittest"
  | "python-pytest"
  | "make";

export interface Ticket {
  project: ProjectName;
  title: string;
  body: string;
  changes: FileChange[];
  /** The project's own test command, as its README says to run it. */
  testCommand: string;
  /** What that command prints once the change's tests pass (colours stripped). */
  passes: RegExp[];
  /** A file `setup:` leaves that read-only steps must be able to read, and what it holds. */
  setupArtifact?: { path: string; holds: RegExp };
}

const NODE_LOCK: Ticket = {
  project: "node-lock",
  title: "Add sumDurations",
  body: 'Add `sumDurations(texts)`: the total of several durations in words (`sumDurations(["90s", "30s"])` is "2 minutes"), refusing a malformed one as parseDuration does. Export it.',
  changes: [
    {
      path: "src/duration.js",
      find: "  return ms(milliseconds, { long: true });\n}\n",
      replace:
        "  return ms(milliseconds, { long: true });\n}\n\n" +
        '/** The total of several durations in words (["90s", "30s"] → "2 minutes"). */\n' +
        "export function sumDurations(texts) {\n" +
        "  return formatDuration(texts.reduce((total, text) => total + parseDuration(text), 0));\n" +
        "}\n",
    },
    {
      path: "src/index.js",
      find: 'export { formatDuration, parseDuration } from "./duration.js";',
      replace: 'export { formatDuration, parseDuration, sumDurations } from "./duration.js";',
    },
    {
      path: "tests/duration.test.js",
      find: 'import { formatDuration, parseDuration } from "../src/duration.js";',
      replace: 'import { formatDuration, parseDuration, sumDurations } from "../src/duration.js";',
    },
    {
      path: "tests/duration.test.js",
      find: "test.run();",
      replace:
        'test("sums durations", () => {\n' +
        '  assert.is(sumDurations(["90s", "30s"]), "2 minutes");\n' +
        '  assert.throws(() => sumDurations(["1h", "later"]), /not a duration: "later"/);\n' +
        "});\n\ntest.run();",
    },
  ],
  testCommand: "npm test",
  // uvu's summary: the 5 tests of main and the ticket's one.
  passes: [/Total:\s+6\b/, /Passed:\s+6\b/],
  setupArtifact: { path: "node_modules/ms/package.json", holds: /"name": "ms"/ },
};

const NODE_NOLOCK: Ticket = {
  project: "node-nolock",
  title: "Keep the base letter of accented letters in slugs",
  body: 'slugify("Crème brûlée") gives "cr-me-br-l-e"; it should give "creme-brulee": an accented letter keeps its base letter.',
  changes: [
    {
      path: "src/slug.js",
      find: "    .toLowerCase()\n",
      // Decomposed, an accented letter is its base letter and a combining mark outside
      // printable ASCII (" " to "~"), which goes. No backslash escape in the edit: Claude
      // Code's Edit turned a written "\\u0300" into the character itself.
      replace: '    .normalize("NFKD")\n    .replace(/[^ -~]/g, "")\n    .toLowerCase()\n',
    },
    {
      path: "test/slug.test.js",
      find: 'test("keeps slugs to 80',
      replace:
        'test("keeps the base letter of accented letters", () => {\n' +
        '  assert.equal(slugify("Crème brûlée"), "creme-brulee");\n' +
        "});\n\n" +
        'test("keeps slugs to 80',
    },
  ],
  testCommand: "node --test",
  passes: [/ok \d+ - keeps the base letter of accented letters/, /# pass 5\b/, /# fail 0\b/],
};

const PYTHON_UNITTEST: Ticket = {
  project: "python-unittest",
  title: "Add Kelvin conversions",
  body: "Add celsius_to_kelvin and kelvin_to_celsius to unitconv.temperature; both refuse temperatures below absolute zero.",
  changes: [
    {
      path: "src/unitconv/temperature.py",
      find: "    _check_celsius(celsius)\n    return celsius\n",
      replace:
        "    _check_celsius(celsius)\n    return celsius\n\n\n" +
        "def celsius_to_kelvin(celsius: float) -> float:\n" +
        '    """Kelvins for `celsius` degrees Celsius."""\n' +
        "    _check_celsius(celsius)\n" +
        "    return celsius - ABSOLUTE_ZERO_C\n\n\n" +
        "def kelvin_to_celsius(kelvin: float) -> float:\n" +
        '    """Degrees Celsius for `kelvin` kelvins."""\n' +
        "    if kelvin < 0:\n" +
        '        raise ValueError(f"{kelvin} K is below absolute zero")\n' +
        "    return kelvin + ABSOLUTE_ZERO_C\n",
    },
    {
      path: "tests/test_temperature.py",
      find: "from unitconv.temperature import celsius_to_fahrenheit, fahrenheit_to_celsius\n",
      replace:
        "from unitconv.temperature import (\n" +
        "    celsius_to_fahrenheit,\n    celsius_to_kelvin,\n" +
        "    fahrenheit_to_celsius,\n    kelvin_to_celsius,\n)\n",
    },
    {
      path: "tests/test_temperature.py",
      find: "            fahrenheit_to_celsius(-500)\n",
      replace:
        "            fahrenheit_to_celsius(-500)\n\n" +
        "    def test_kelvin(self):\n" +
        "        self.assertAlmostEqual(celsius_to_kelvin(0), 273.15)\n" +
        "        self.assertAlmostEqual(kelvin_to_celsius(0), -273.15)\n" +
        "        with self.assertRaises(ValueError):\n" +
        "            kelvin_to_celsius(-1)\n",
    },
  ],
  // The repository's own validate.test (its .github/forge.yml): its virtual environment.
  testCommand: ".venv/bin/python -m unittest discover -s tests -v",
  passes: [/test_kelvin \(.*\) \.\.\. ok/, /Ran 6 tests/, /^OK$/m],
  setupArtifact: { path: ".venv/pyvenv.cfg", holds: /include-system-site-packages = true/ },
};

const PYTHON_PYTEST: Ticket = {
  project: "python-pytest",
  title: "Add sentence_count",
  body: "Add sentence_count(text) to textstats.counting: the number of sentences, a sentence being words ended by '.', '!' or '?' (or by the end of the text).",
  changes: [
    {
      path: "src/textstats/counting.py",
      find: "    return Counter(words(text)).most_common(n)\n",
      replace:
        "    return Counter(words(text)).most_common(n)\n\n\n" +
        "def sentence_count(text: str) -> int:\n" +
        "    \"\"\"How many sentences `text` holds: words ended by '.', '!' or '?' (or the end).\"\"\"\n" +
        '    return sum(1 for part in re.split(r"[.!?]+", text) if WORD.search(part))\n',
    },
    {
      path: "tests/test_counting.py",
      find: "from textstats.counting import top_words, word_count, words\n",
      replace: "from textstats.counting import sentence_count, top_words, word_count, words\n",
    },
    {
      path: "tests/test_counting.py",
      find: "def test_words_are_lower_case(essay):",
      replace:
        "@pytest.mark.parametrize(\n" +
        '    ("text", "expected"),\n' +
        '    [("", 0), ("One.", 1), ("One. Two! Three?", 3), ("No end mark", 1), ("Wait... what?!", 2)],\n' +
        ")\n" +
        "def test_sentence_count(text, expected):\n" +
        "    assert sentence_count(text) == expected\n\n\n" +
        "def test_words_are_lower_case(essay):",
    },
  ],
  testCommand: "python3 -m pytest -v",
  passes: [/test_sentence_count\[.*PASSED/, /\b17 passed\b/],
};

const MAKE: Ticket = {
  project: "make",
  title: "Add str_ends_with",
  body: "Add str_ends_with(s, suffix) to strkit, the counterpart of str_starts_with, with tests.",
  changes: [
    {
      path: "src/strkit.h",
      find: "int str_starts_with(const char *s, const char *prefix);\n",
      replace:
        "int str_starts_with(const char *s, const char *prefix);\n\n" +
        "/* 1 when `s` ends with `suffix`, else 0. */\n" +
        "int str_ends_with(const char *s, const char *suffix);\n",
    },
    {
      path: "src/strkit.c",
      find: "    return strncmp(s, prefix, strlen(prefix)) == 0;\n}\n",
      replace:
        "    return strncmp(s, prefix, strlen(prefix)) == 0;\n}\n\n" +
        "int str_ends_with(const char *s, const char *suffix) {\n" +
        "    size_t n = strlen(s), m = strlen(suffix);\n" +
        "    return m <= n && strcmp(s + n - m, suffix) == 0;\n}\n",
    },
    {
      path: "tests/test_strkit.c",
      find: "int main(void) {\n",
      replace:
        "static void test_ends_with(void) {\n" +
        '    CHECK(str_ends_with("forgechain", "chain"));\n' +
        '    CHECK(!str_ends_with("chain", "forgechain"));\n' +
        '    CHECK(str_ends_with("anything", ""));\n}\n\n' +
        "int main(void) {\n",
    },
    {
      path: "tests/test_strkit.c",
      find: "    test_starts_with();\n",
      replace: "    test_starts_with();\n    test_ends_with();\n",
    },
  ],
  testCommand: "make test",
  passes: [/^13 passed, 0 failed$/m],
};

export const TICKETS: Record<ProjectName, Ticket> = {
  "node-lock": NODE_LOCK,
  "node-nolock": NODE_NOLOCK,
  "python-unittest": PYTHON_UNITTEST,
  "python-pytest": PYTHON_PYTEST,
  make: MAKE,
};
