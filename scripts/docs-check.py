#!/usr/bin/env python3
"""Fails on a name in README.md or docs/*.md that the tree no longer has.

`make lint` runs it (and `--self-test`). Code moves under the docs; this says where they fell
behind. Fenced code blocks are examples (shell, JSON, other SDKs' code) and are not read. In the
rest, each inline code span is checked when it clearly claims to be one of ours:

- a path: it has a `/` and starts at one of the repository's top-level entries (`Sources/…`,
  `docs/…`, `.ci/…`). It must be a file or folder the tree holds (tracked, or new and not
  ignored); a `*` matches as a shell glob, a `#anchor` on a .md file must name a heading there.
  Spans that start anywhere else are not ours: URL paths (`/api/phones/{id}`), absolute paths
  (`/proc/self/stat`), other projects' files (`src/messaging/messaging.ts`) and generated output
  (`artifacts/…`, `.build/…`, ignored so never a top-level entry).
- a file name: no `/`, a name ending in one of SOURCE_EXTENSIONS. Some file of the tree must
  have that name. Data files (`.json`, `.sqlite`) are left out: the docs name files a run makes.
- a Swift symbol: `Type`, `Type.member`, `Type.member(label:)` and nothing else, the type
  starting with a capital, with a lowercase letter somewhere. So error codes, flow states and
  other all-capital words, header names (`Retry-After`), JSON, calls with arguments
  (`Message(fid=…)`) and lowerCamel names are not symbols: in these docs a lowerCamel name is
  nearly always a JSON field, a setting, an option or a JS/Python name, and a stale one would
  be guessed at. The type must be declared in Swift under Sources/, Tests/ or Fuzz/ (class,
  struct, enum, protocol, actor, typealias, extension), be a target (a folder of Sources/ or
  Tests/), or be a schema of Public/openapi.yaml (docs/protocol.md names the wire's shapes so);
  each member must be declared in that type: in its body or an extension of it, or of a
  protocol it conforms to (func, var, let, case, init, or a nested type), and a member after a
  nested type in that nested type. A member after a property (`Type.property.member`), whose
  type is not read here, need only be declared somewhere.
  Other code's names (Foundation, NIO, the Firebase SDKs, HTTP headers) cannot be told from a
  stale one of ours, so they are listed once in NOT_OURS: a new one is added there by hand.

Each relative Markdown link must reach a file, and its #anchor a heading (GitHub's slugs).
"""

import argparse
import contextlib
import fnmatch
import io
import os
import re
import subprocess
import sys
import tempfile
import unittest

SOURCE_EXTENSIONS = (
    ".swift", ".py", ".js", ".md", ".yaml", ".yml", ".sh", ".html", ".css", ".mustache",
)

# Names of other code that the docs mention, by where they come from.
NOT_OURS = {
    # Swift's standard library and Foundation
    "Date", "DateFormatter", "Decimal", "JSONEncoder", "JSONSerialization", "String",
    # swift-nio
    "NIOSingletons",
    # HTTP header names and cookie attributes written alone
    "Host", "Origin", "Upgrade", "HttpOnly",
    # Google's API types (google.rpc.BadRequest, FCM's error detail)
    "BadRequest",
    # the Firebase Admin SDKs (Python, Java, Node.js) and Android's messaging
    "AppOptions", "FirebaseOptions", "HttpTransport", "NetHttpTransport", "Http2SessionHandler",
    "UnregisteredError", "SenderIdMismatchError", "InvalidArgumentError", "QuotaExceededError",
    "ValueError", "RemoteMessage", "AndroidConfig", "AndroidNotification", "LightSettings", "APNSConfig", "Aps",
    "ApsAlert", "CriticalSound", "WebpushConfig", "WebpushNotification", "FCMOptions",
    # google-auth, as privacyIDEA's Firebase provider uses it
    "RefreshError",
    # Twilio's Messages API parameters
    "To", "From", "MessagingServiceSid", "StatusCallback",
    # the SDKs AuthPhone simulates, as their documentation names them
    "MobileAuthenticationClient", "OTPAvailable", "Service", "User",
}

FENCE = re.compile(r"^ {0,3}(```|~~~)")
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
LINK = re.compile(r"!?\[[^\]]*\]\(([^()\s]+)\)")
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")
SYMBOL = re.compile(r"^([A-Z][A-Za-z0-9]*)((?:\.[A-Za-z_][A-Za-z0-9_]*)*)(\([A-Za-z0-9_:]*\))?$")
FILE_NAME = re.compile(r"^[\w.+-]+$")
TYPE_DECLARATION = re.compile(
    r"\b(?:class|struct|enum|protocol|actor|typealias|extension|associatedtype)\s+"
    r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)"
)
MEMBER_DECLARATION = re.compile(r"\b(?:func|var|let|init|subscript)\b\s*`?([A-Za-z_]\w*)?")
CASE_DECLARATION = re.compile(r"\bcase\s+(?!\.)([^:={}]*)")


class Tree:
    """What the docs may name: the files, and the Swift and OpenAPI names declared in them."""

    def __init__(self, root):
        self.root = root
        self.files = list_files(root)
        self.folders = {os.path.dirname(f) for f in self.files}
        self.folders |= {p for f in self.folders for p in parents(f)}
        self.top_level = {f.split("/")[0] for f in self.files}
        self.file_names = {os.path.basename(f) for f in self.files}
        self.targets = {
            f.split("/")[1]
            for f in self.files
            if f.startswith(("Sources/", "Tests/")) and f.count("/") >= 2
        }
        self.types, self.members, self.members_of, self.bases = swift_declarations(root, self.files)
        self.schemas = openapi_schemas(os.path.join(root, "Public", "openapi.yaml"))
        self.headings = {}

    def has_path(self, path):
        path = path.rstrip("/")
        if "*" in path or "?" in path:
            return any(fnmatch.fnmatch(f, path) or fnmatch.fnmatch(f, path + "/*")
                       for f in self.files)
        return path in self.files or path in self.folders

    def anchors(self, relative_path):
        if relative_path not in self.headings:
            with open(os.path.join(self.root, relative_path), encoding="utf-8") as file:
                self.headings[relative_path] = heading_slugs(file.read())
        return self.headings[relative_path]


def parents(folder):
    parts = folder.split("/")
    return {"/".join(parts[:i]) for i in range(1, len(parts))}


def list_files(root):
    """Tracked files and new ones not ignored; a folder outside git is walked whole."""
    if os.path.exists(os.path.join(root, ".git")):
        output = subprocess.run(
            ["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            check=True, capture_output=True,
        ).stdout.decode()
        listed = [f for f in output.split("\0") if f]
        return sorted(f for f in listed if os.path.exists(os.path.join(root, f)))
    walked = []
    for folder, _, names in os.walk(root):
        walked += [os.path.relpath(os.path.join(folder, n), root).replace(os.sep, "/")
                   for n in names]
    return sorted(walked)


def swift_declarations(root, files):
    """The types, every member name, each type's own members (its body's and its extensions'
    declarations, not a function's locals) and the types each type names after its colon."""
    types, members, members_of, bases = set(), set(), {}, {}
    for path in files:
        if not (path.endswith(".swift") and path.startswith(("Sources/", "Tests/", "Fuzz/"))):
            continue
        with open(os.path.join(root, path), encoding="utf-8") as file:
            text = file.read()
        depth, scopes, pending = 0, [], None  # scopes: (type, depth of its body)
        for line in code_lines(text):
            scope = scopes[-1][0] if scopes and scopes[-1][1] == depth else None
            declared = set()
            for name in TYPE_DECLARATION.findall(line):
                types.update(name.split("."))
                pending = name.split(".")[-1]
                declared.add(pending)
                after = line.split(name, 1)[1].split("{", 1)[0].split(" where ", 1)[0]
                if after.lstrip().startswith(":"):
                    bases.setdefault(pending, set()).update(re.findall(r"[A-Z]\w*", after))
            for name in MEMBER_DECLARATION.findall(line):
                declared.add(name or "init")
            for cases in CASE_DECLARATION.findall(line):
                declared.update(re.findall(r"(?:^|,)\s*`?([A-Za-z_]\w*)", cases))
            members |= declared
            if scope:
                members_of.setdefault(scope, set()).update(declared)
            for brace in re.findall(r"[{}]", line):
                if brace == "{":
                    depth += 1
                    if pending:
                        scopes.append((pending, depth))
                        pending = None
                else:
                    if scopes and scopes[-1][1] == depth:
                        scopes.pop()
                    depth -= 1
    return types, members, members_of, bases


def code_lines(text):
    """Swift's lines without comments and string literals, whose braces are not code's."""
    text = re.sub(r'"""(?:.|\n)*?"""', '""', text)
    text = re.sub(r'#"(?:[^"\n]|"(?!#))*"#', '""', text)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    return [line.split("//", 1)[0] for line in text.split("\n")]


def declared_in(tree, type_name, member, seen=()):
    """Whether `member` is declared in the type, an extension of it, or a protocol it conforms to."""
    if member in tree.members_of.get(type_name, ()):
        return True
    return any(declared_in(tree, base, member, seen + (type_name,))
               for base in tree.bases.get(type_name, ()) if base not in seen)


def openapi_schemas(path):
    """The keys under components.schemas, read off their indentation (no YAML library here)."""
    if not os.path.exists(path):
        return set()
    schemas, inside = set(), False
    with open(path, encoding="utf-8") as file:
        for line in file:
            if re.match(r"^  schemas:\s*$", line):
                inside = True
            elif inside and re.match(r"^ {0,2}\S", line):
                inside = False
            elif inside:
                key = re.match(r"^    ([A-Za-z_][\w.-]*):", line)
                if key:
                    schemas.add(key.group(1))
    return schemas


def heading_slugs(text):
    """GitHub's anchors: lowercase, punctuation dropped, spaces as hyphens, repeats numbered."""
    slugs, seen = set(), {}
    for line in prose_lines(text):
        heading = HEADING.match(line)
        if not heading:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading.group(1).lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        slugs.add(slug if count == 0 else f"{slug}-{count}")
    return slugs


def prose_lines(text):
    """The text's lines with fenced code blocks blanked, so line numbers still hold."""
    lines, fenced = [], None
    for line in text.split("\n"):
        fence = FENCE.match(line)
        if fenced:
            if fence and fence.group(1) == fenced:
                fenced = None
            lines.append("")
        elif fence:
            fenced = fence.group(1)
            lines.append("")
        else:
            lines.append(line)
    return lines


def problem_with_span(tree, span):
    """Why a code span names something the tree lacks, or None when it is fine or not ours."""
    if any(c.isspace() for c in span):
        return None
    if "/" in span:
        path, _, anchor = span.partition("#")
        if path.startswith("/") or path.split("/")[0] not in tree.top_level:
            return None
        if not tree.has_path(path):
            return "no such file or folder"
        if anchor and path.endswith(".md") and anchor not in tree.anchors(path):
            return f"no heading #{anchor} in {path}"
        return None
    if FILE_NAME.match(span) and span.endswith(SOURCE_EXTENSIONS):
        return None if span in tree.file_names else "no file of that name"
    symbol = SYMBOL.match(span)
    if not symbol or not re.search("[a-z]", span):
        return None
    type_name, members = symbol.group(1), [m for m in symbol.group(2).split(".") if m]
    if type_name in NOT_OURS:
        return None
    if type_name not in tree.types | tree.targets | tree.schemas:
        return (f"no Swift type, target or OpenAPI schema {type_name}"
                " (another project's? add it to NOT_OURS)")
    missing, owner = [], type_name if type_name in tree.members_of else None
    for member in members:
        if owner is None:
            # a target, a schema or a property before it: the member's type is not known here
            if member not in tree.members and member not in tree.types:
                missing.append(member)
        elif declared_in(tree, owner, member):
            owner = member if member in tree.members_of else None
        else:
            missing.append(member)
            owner = None
    return f"no Swift declaration of {', '.join(missing)} in {type_name}" if missing else None


def problem_with_link(tree, document, target):
    if re.match(r"^[a-z][a-z0-9+.-]*:", target):
        return None
    path, _, anchor = target.partition("#")
    if path:
        path = os.path.normpath(os.path.join(os.path.dirname(document), path)).replace(os.sep, "/")
        if not tree.has_path(path):
            return "no such file"
    else:
        path = document
    if anchor and path.endswith(".md") and anchor not in tree.anchors(path):
        return f"no heading #{anchor} in {path}"
    return None


def check_document(tree, document):
    with open(os.path.join(tree.root, document), encoding="utf-8") as file:
        text = "\n".join(prose_lines(file.read()))
    problems = []

    def line_of(offset):
        return text.count("\n", 0, offset) + 1

    for span in CODE_SPAN.finditer(text):
        content = span.group(2).strip()
        reason = problem_with_span(tree, content)
        if reason:
            problems.append(f"{document}:{line_of(span.start())}: `{content}`: {reason}")
    without_spans = CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    for link in LINK.finditer(without_spans):
        reason = problem_with_link(tree, document, link.group(1))
        if reason:
            problems.append(f"{document}:{line_of(link.start())}: ({link.group(1)}): {reason}")
    return problems


def check(root):
    tree = Tree(root)
    documents = [f for f in tree.files if f == "README.md" or re.match(r"^docs/[^/]+\.md$", f)]
    return [p for d in documents for p in check_document(tree, d)]


class SelfTest(unittest.TestCase):
    """A small tree with one stale name of each kind planted beside real ones."""

    SWIFT = """
        struct DemoBackend {
            func createSession() {
                let verifyPin = "{"
            }
            enum Outcome {
                case loggedIn, failed(String)
            }
        }
        extension UUID {
            static func random() -> UUID { UUID() }
        }  // struct NotDeclared
        protocol Store {}
        extension Store {
            func write() {}
        }
        struct DemoStore: Store {}
    """
    OPENAPI = "components:\n  schemas:\n    PhoneDetail:\n      type: object\npaths: {}\n"
    GUIDE = "# Guide\n\n## The stage and the timeline\n"
    README = """# Demo

Real: `Sources/Backend/DemoBackend.swift`, `Sources/Backend/`, `Sources/*/DemoBackend.swift`,
`DemoBackend.swift`, `DemoBackend`, `DemoBackend.createSession`, `DemoBackend.Outcome.loggedIn`,
`DemoBackend.Outcome.failed`, `UUID.random()`, `DemoStore.write`, `Backend`, `PhoneDetail`, `docs/guide.md#guide`,
[the stage](docs/guide.md#the-stage-and-the-timeline), [home](#demo), `Date`, `String(format:)`.
Not ours or not names: `PIN_BLOCKED`, `WAIT_FOR_INPUT`, `Retry-After`, `/api/phones/{id}`,
`/proc/self/stat`, `src/messaging/messaging.ts`, `artifacts/bench/RUN/results.json`,
`pinLength`, `Message(fid=…)`, `{"action": "confirmSession"}`, `authphone load --phones 10`,
`phones.sqlite`, `https://fcm.googleapis.com`, `AUTHPHONE_PORT`, `--pin-kdf`, `HAR`,
`Authorization: Bearer KEY`, ``https://${host}${path}``.

```swift
DemoBackend.verifyPin(`Sources/Backend/Gone.swift`)
```

Planted: `Sources/Backend/BackendAPI.swift`, `Gone.swift`, `DemoBackend.verifyPin`, `DemoBackend.loggedIn`,
`NotDeclared`, `Sources/Nowhere/*`, `docs/guide.md#no-such-heading`,
[gone](docs/gone.md), [gone heading](docs/guide.md#the-stage).
"""
    PLANTED = [
        "README.md:17: `Sources/Backend/BackendAPI.swift`: no such file or folder",
        "README.md:17: `Gone.swift`: no file of that name",
        "README.md:17: `DemoBackend.verifyPin`: no Swift declaration of verifyPin in DemoBackend",
        "README.md:17: `DemoBackend.loggedIn`: no Swift declaration of loggedIn in DemoBackend",
        "README.md:18: `NotDeclared`: no Swift type, target or OpenAPI schema NotDeclared"
        " (another project's? add it to NOT_OURS)",
        "README.md:18: `Sources/Nowhere/*`: no such file or folder",
        "README.md:18: `docs/guide.md#no-such-heading`:"
        " no heading #no-such-heading in docs/guide.md",
        "README.md:19: (docs/gone.md): no such file",
        "README.md:19: (docs/guide.md#the-stage): no heading #the-stage in docs/guide.md",
    ]

    def plant(self, root, readme):
        files = {
            "Sources/Backend/DemoBackend.swift": self.SWIFT,
            "Public/openapi.yaml": self.OPENAPI,
            "docs/guide.md": self.GUIDE,
            "README.md": readme,
        }
        for path, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as file:
                file.write(text)

    def test_every_planted_stale_name_fails_and_nothing_else(self):
        with tempfile.TemporaryDirectory() as root:
            self.plant(root, self.README)
            self.assertEqual(check(root), self.PLANTED)
            with contextlib.redirect_stderr(io.StringIO()) as printed:
                self.assertEqual(main(["--root", root]), 1)
            self.assertIn("`DemoBackend.verifyPin`", printed.getvalue())

    def test_the_real_names_alone_pass(self):
        with tempfile.TemporaryDirectory() as root:
            self.plant(root, self.README.split("Planted:")[0])
            self.assertEqual(check(root), [])
            self.assertEqual(main(["--root", root]), 0)


def main(arguments):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--root", default=os.path.join(here, ".."), help="the repository")
    parser.add_argument("--self-test", action="store_true", help="check the check, planted")
    options = parser.parse_args(arguments)
    if options.self_test:
        tests = unittest.defaultTestLoader.loadTestsFromTestCase(SelfTest)
        result = unittest.TextTestRunner(verbosity=1).run(tests)
        return 0 if result.wasSuccessful() else 1
    problems = check(os.path.abspath(options.root))
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"docs-check: {len(problems)} name(s) in the docs that the tree does not have",
              file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
