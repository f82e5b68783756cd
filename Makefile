# Shelf — the commands. `make run` and `make test` are the two that matter; each
# depends on `setup`, which is idempotent and quick when everything is installed.
SHELL := /bin/bash
SWIFT ?= swift
VENV := .venv
APT_PACKAGES := libcurl4-openssl-dev libsqlite3-dev
# The test build refuses imports of targets that are not declared dependencies.
SWIFT_BUILD_FLAGS := --explicit-target-dependency-import-check error

.PHONY: setup apt-packages build test check bench server server-stop clean

## setup: install the C libraries (apt) and the pinned Kinto into .venv
setup: apt-packages $(VENV)/.installed

apt-packages:
	@if ! dpkg -s $(APT_PACKAGES) >/dev/null 2>&1; then \
	  echo "Installing $(APT_PACKAGES)"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(APT_PACKAGES); \
	fi

$(VENV)/.installed: Fixtures/kinto/requirements.txt
	@test -x $(VENV)/bin/python || python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -r Fixtures/kinto/requirements.txt
	@touch $@

## build: build every module and app (debug)
build: apt-packages
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)

## check: the module graph follows the allow-list in README.md
check:
	python3 Scripts/check-module-graph.py

## test: everything — module graph, unit, integration (real Kinto) and end-to-end tests
test: setup check
	$(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS)
	$(SWIFT) test --skip-build

## bench: performance runs in release; figures also land in Benchmarks/results/
bench: apt-packages
	@mkdir -p Benchmarks/results
	$(SWIFT) run -c release StorageBench | tee Benchmarks/results/StorageBench.txt
	$(SWIFT) run -c release RepositoriesBench | tee Benchmarks/results/RepositoriesBench.txt

## server: start a local Kinto on 127.0.0.1:8888 seeded from Fixtures/ (stop: make server-stop)
server: setup
	@Scripts/kinto-server.sh start

server-stop:
	@Scripts/kinto-server.sh stop

clean:
	rm -rf .build .run
