# AuthPhone: `make run` serves it on http://127.0.0.1:8080, `make test` runs every test.
# Both install what a fresh Debian machine lacks first.

CONFIG ?= debug
ARGS ?=
FUZZ_SECONDS ?= 60

.PHONY: run test build setup setup-test lint format unit-test api-test browser-test python-client-test load-smoke fuzz bench dist dist-test clean

run: setup
	swift build -c $(CONFIG) --product authphone
	.build/$(CONFIG)/authphone serve $(ARGS)

test: setup-test lint
	swift build --build-tests
	scripts/unit-test.sh
	scripts/fuzz.sh 10
	scripts/api-test.sh
	scripts/browser-test.sh
	scripts/python-client-test.sh
	scripts/load-smoke.sh
	scripts/dist-test.sh

# The formatter's configuration is .swift-format; `make format` applies it. The docs check fails
# on a path, file or Swift name in README.md or docs/ that the tree no longer has. The deploy
# check renders deploy/'s manifests and validates them for Kubernetes, and lints its Dockerfile.
SWIFT_SOURCES = Package.swift Sources Tests Fuzz

lint:
	swift format lint --strict --recursive --parallel $(SWIFT_SOURCES)
	scripts/docs-check.py --self-test
	scripts/docs-check.py
	scripts/deploy-lint.sh

format:
	swift format --in-place --recursive --parallel $(SWIFT_SOURCES)

# The Swift tests, with a throw-away PostgreSQL (so PostgreSQL must be installed: setup-test).
unit-test: setup-test
	swift build --build-tests
	scripts/unit-test.sh

api-test: setup-test
	swift build --build-tests
	scripts/api-test.sh

browser-test: setup-test
	swift build --build-tests
	scripts/browser-test.sh

# The Python package clients/python in a fresh venv: its tests and examples against the built binary.
python-client-test: setup-test
	swift build --build-tests
	scripts/python-client-test.sh

load-smoke: setup
	swift build --build-tests
	scripts/load-smoke.sh

# Release build, micro benchmarks, the load generator at a few sizes; figures in artifacts/bench/.
bench: setup
	swift build -c release
	scripts/bench.sh

# A release to unpack: artifacts/dist/authphone-VERSION-linux-ARCH.tar.gz (a release build).
dist: setup
	scripts/dist.sh

# The archive unpacked in an empty folder serves its pages.
dist-test: setup
	scripts/dist-test.sh

fuzz: setup
	scripts/fuzz.sh $(FUZZ_SECONDS)

build: setup
	swift build --build-tests

setup:
	scripts/install-system-packages.sh

setup-test:
	scripts/install-system-packages.sh --test

clean:
	rm -rf .build .venv .venv-privacyidea .venv-edumfa .venv-client .venv-deploy artifacts
