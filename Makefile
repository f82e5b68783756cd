# Shelf — the commands. `make run` and `make test` are the two that matter; each
# depends on `setup`, which is idempotent and quick when everything is installed.
SHELL := /bin/bash
SWIFT ?= swift
VENV := .venv
# libsodium is Encryption's cryptography; openssl makes the tests' throw-away CA; postgresql runs the production config's test;
# zsh and fish check the completion scripts Shelf writes for them; tmux is the terminal the full-screen tests drive;
# systemd brings systemd-analyze, which verifies and rates the shipped units offline (no init needed, so a container
# without a running systemd is fine).
APT_PACKAGES := libcurl4-openssl-dev libsqlite3-dev libsodium-dev openssl postgresql zsh fish tmux systemd
# The test build refuses imports of targets that are not declared dependencies.
SWIFT_BUILD_FLAGS := --explicit-target-dependency-import-check error
# Seconds the whole test run may take (about 4 min here): past it, Scripts/with-deadline.py
# prints the processes still running and ends them, well before CI's own 90-minute limit.
TEST_DEADLINE ?= 2400
# Release apps carry the Swift runtime and Foundation inside: loading them as shared
# libraries costs ~10 ms at every start, more than `shelf --version` may take.
RELEASE_FLAGS := -c release --static-swift-stdlib

.PHONY: setup apt-packages build release run test check server server-stop server-production server-production-stop soak scenario-concurrent harness-test clean bench bench-quick bench-scale bench-sealed bench-devices bench-setup bench-build bench-micro bench-cli bench-interchange bench-ui bench-test bench-projection man completions install uninstall

## setup: install the C libraries, openssl, PostgreSQL, the shells, tmux and systemd-analyze (apt), the pinned Kinto and its
## PostgreSQL backend into .venv, and PyNaCl for the encryption format's second implementation
setup: apt-packages $(VENV)/.installed $(VENV)/.postgresql-installed $(VENV)/.interop-installed

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

$(VENV)/.postgresql-installed: $(VENV)/.installed Fixtures/kinto/requirements-postgresql.txt
	$(VENV)/bin/pip install -q --disable-pip-version-check -r Fixtures/kinto/requirements-postgresql.txt
	@touch $@

# Tests/Interop: a Python implementation of the encryption format, run by EncryptionTests.
$(VENV)/.interop-installed: $(VENV)/.installed Fixtures/encryption/requirements.txt
	$(VENV)/bin/pip install -q --disable-pip-version-check -r Fixtures/encryption/requirements.txt
	@touch $@

## build: build every module and app (debug)
build: apt-packages
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)

## release: the two apps as shipped, in .build/release (RELEASE_FLAGS: Swift runtime linked in);
## the benchmarks measure these builds
release: apt-packages
	$(SWIFT) build $(RELEASE_FLAGS) --product shelf
	$(SWIFT) build $(RELEASE_FLAGS) --product shelf-sync

## man: man pages shelf(1) and shelf-sync(1), written from the command declarations (`--generate-man`;
##   roff, in .build/man); SOURCE_DATE_EPOCH (the last commit's time) dates them
## completions: shelf's bash, zsh and fish completion scripts (`shelf completion SHELL`, in .build/man)
## install: release builds, man pages, the completion scripts and the systemd units into
##   $(DESTDIR)$(PREFIX); the list of installed files is kept for uninstall
## uninstall: removes exactly the files that list names
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR := $(PREFIX)/bin
MAN1DIR := $(PREFIX)/share/man/man1
SYSTEMD_SYSTEM_DIR := $(PREFIX)/lib/systemd/system
SYSTEMD_USER_DIR := $(PREFIX)/lib/systemd/user
BASH_COMPLETION_DIR := $(PREFIX)/share/bash-completion/completions
ZSH_COMPLETION_DIR := $(PREFIX)/share/zsh/site-functions
FISH_COMPLETION_DIR := $(PREFIX)/share/fish/vendor_completions.d
INSTALL_MANIFEST := $(PREFIX)/share/shelf/installed-files
# The binaries installed and documented; BUILT=.build/debug installs a debug build (tests).
BUILT ?= .build/release
MAN_OUT ?= .build/man
APPS := shelf shelf-sync

# The last commit's time: from git in a checkout, else from .source-date-epoch, which
# `git archive` fills in (export-subst, .gitattributes). Never exported empty: swift
# refuses an empty SOURCE_DATE_EPOCH, and a tarball has no git to ask.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null)
ifeq ($(strip $(SOURCE_DATE_EPOCH)),)
override SOURCE_DATE_EPOCH := $(shell grep -Ex '[0-9]+' .source-date-epoch 2>/dev/null)
endif
ifneq ($(strip $(SOURCE_DATE_EPOCH)),)
export SOURCE_DATE_EPOCH
else
unexport SOURCE_DATE_EPOCH
endif
COMPLETIONS := $(MAN_OUT)/shelf.bash $(MAN_OUT)/_shelf $(MAN_OUT)/shelf.fish

man: $(addprefix $(MAN_OUT)/,$(addsuffix .1,$(APPS)))

$(MAN_OUT)/%.1: $(BUILT)/%
	@mkdir -p $(MAN_OUT)
	$< --generate-man > $@.tmp && mv $@.tmp $@

completions: $(COMPLETIONS)

$(MAN_OUT)/shelf.bash $(MAN_OUT)/_shelf $(MAN_OUT)/shelf.fish: $(BUILT)/shelf
	@mkdir -p $(MAN_OUT)
	$< completion $(patsubst shelf.%,%,$(patsubst _shelf,zsh,$(notdir $@))) > $@.tmp && mv $@.tmp $@

$(addprefix $(BUILT)/,$(APPS)):
	$(SWIFT) build $(RELEASE_FLAGS) --product $(notdir $@)

install: $(if $(filter .build/release,$(BUILT)),release) man completions
	@set -e; \
	list=$$(mktemp); trap 'rm -f "$$list"' EXIT; \
	put() { install -D -m "$$1" "$$2" "$(DESTDIR)$$3"; echo "$$3" >> "$$list"; echo "  $(DESTDIR)$$3"; }; \
	for app in $(APPS); do put 755 $(BUILT)/$$app $(BINDIR)/$$app; put 644 $(MAN_OUT)/$$app.1 $(MAN1DIR)/$$app.1; done; \
	put 644 $(MAN_OUT)/shelf.bash $(BASH_COMPLETION_DIR)/shelf; \
	put 644 $(MAN_OUT)/_shelf $(ZSH_COMPLETION_DIR)/_shelf; \
	put 644 $(MAN_OUT)/shelf.fish $(FISH_COMPLETION_DIR)/shelf.fish; \
	for scope in system user; do \
	  dir=$$( [ $$scope = system ] && echo $(SYSTEMD_SYSTEM_DIR) || echo $(SYSTEMD_USER_DIR) ); \
	  for unit in shelf-sync.service shelf-sync.timer; do \
	    sed 's#/usr/local/bin/shelf-sync#$(BINDIR)/shelf-sync#' Apps/shelf-sync/systemd/$$scope/$$unit > $(MAN_OUT)/$$scope-$$unit; \
	    put 644 $(MAN_OUT)/$$scope-$$unit $$dir/$$unit; \
	  done; \
	done; \
	echo "$(INSTALL_MANIFEST)" >> "$$list"; \
	install -D -m 644 "$$list" "$(DESTDIR)$(INSTALL_MANIFEST)"; echo "  $(DESTDIR)$(INSTALL_MANIFEST)"

uninstall:
	@set -e; manifest="$(DESTDIR)$(INSTALL_MANIFEST)"; \
	if [ ! -f "$$manifest" ]; then echo "nothing to uninstall: no $$manifest"; exit 0; fi; \
	while IFS= read -r file; do \
	  case "$$file" in /*) ;; *) echo "skipping '$$file': not an absolute path"; continue;; esac; \
	  if [ -e "$(DESTDIR)$$file" ] || [ -L "$(DESTDIR)$$file" ]; then rm -f "$(DESTDIR)$$file"; echo "  removed $(DESTDIR)$$file"; fi; \
	done < "$$manifest"; \
	rmdir "$$(dirname "$$manifest")" 2>/dev/null || true

## run: a local Kinto seeded from Fixtures/, an account for its reader, `shelf sync`, `shelf books`
run: setup build
	@Scripts/shelf-run.sh

## check: the module graph follows the allow-list in README.md — declared edges and every import line; and every
##   name ARCHITECTURE.md and the module READMEs give in backticks still names a file or code (CODE_MAP_ARGS=--help)
check:
	python3 Scripts/check-module-graph.py $(CHECK_ARGS)
	python3 Scripts/check-code-map.py $(CODE_MAP_ARGS)

## test: everything — module graph, code map, unit, integration (real Kinto) and end-to-end tests; at the end, the
##   tests that did not run, each with its reason (Swift Testing's "➜ Test … skipped: …" lines; the output is kept
##   in .build/test-output.txt). A run still going after TEST_DEADLINE seconds (40 min) prints the processes under it
##   and the tests it started and never ended, and is ended (Scripts/with-deadline.py; the output is line-buffered,
##   stdbuf, so that it holds every line up to the end); a test's wait on any one program ends after 10 min
##   (ProcessDeadline)
test: setup check
	$(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS)
	@echo "$(SWIFT) test --skip-build"; set -o pipefail; \
	python3 Scripts/with-deadline.py $(TEST_DEADLINE) stdbuf -oL -eL $(SWIFT) test --skip-build 2>&1 \
		| tee .build/test-output.txt; status=$$?; \
	if [ $$status = 124 ]; then echo "Tests started and never ended:"; python3 Scripts/unfinished-tests.py .build/test-output.txt; fi; \
	skipped=$$(grep -E '^➜ Test .+ skipped(: ".*"|\.)$$' .build/test-output.txt); \
	if [ -n "$$skipped" ]; then echo "Skipped, $$(grep -c . <<< "$$skipped") tests:"; echo "$$skipped"; \
	else echo "Skipped: none; every test ran."; fi; \
	exit $$status

## soak: the convergence harness, long — SEEDS histories of STEPS actions on DEVICES devices, LATENCY ms per
## request, shelf-sync killed at random, replies lost/cut/reset (MODE=faults); SEED=N replays one seed exactly;
## MODE=concurrent adds bursts of devices pushing into one collection at once, on Kinto with PostgreSQL
## (SERVER=production, its default; SERVER=memory or production for any mode; WORKERS=N gunicorn worker processes,
## 4 on the production server by default); ENCRYPTED=1 runs every device end-to-end encrypted (a passphrase file
## each; encryption on at setup, or turned on part-way through while the others edit, and the others join) and
## checks that the server holds only sealed records; HOSTILE=1 (with ENCRYPTED=1) adds Kinto's operator replaying,
## forging, deleting and rolling the keyring back between steps, and fails a run where any of it reaches a device;
## HISTORY=1 runs Kinto with kinto.plugins.history, so idle runs read the bucket's history (docs/sync.md)
SEEDS ?= 4
STEPS ?= 500
DEVICES ?= 3
LATENCY ?= 60
MODE ?= faults
SERVER ?=
WORKERS ?=
ENCRYPTED ?=
HOSTILE ?=
HISTORY ?=
SOAK_ARGS ?=
soak: setup build
	python3 Tests/FaultHarness/harness.py --mode $(MODE) --steps $(STEPS) --devices $(DEVICES) \
	  --latency-ms $(LATENCY) $(if $(SEED),--seed $(SEED),--seeds $(SEEDS) --keep-going) \
	  $(if $(SERVER),--server $(SERVER)) $(if $(WORKERS),--workers $(WORKERS)) \
	  $(if $(filter 1 yes true,$(ENCRYPTED)),--encrypted) $(if $(filter 1 yes true,$(HOSTILE)),--hostile) \
	  $(if $(filter 1 yes true,$(HISTORY)),--history) $(SOAK_ARGS)

## scenario-concurrent: 3 writer devices add 40 books a round for 12 rounds (1,440) and sync at the same moment
## while 2 readers sync in a loop, on Kinto with PostgreSQL; prints each device's books against the server's and
## fails if any device misses one (RUNS=N fresh servers, WORKERS=N Kinto processes, SCENARIO_ARGS=--help)
SCENARIO_ARGS ?=
scenario-concurrent: setup build
	python3 Tests/FaultHarness/scenario_concurrent.py --runs $(or $(RUNS),1) \
	  $(if $(WORKERS),--workers $(WORKERS)) $(SCENARIO_ARGS)

## harness-test: the convergence harness's own tests (generator, model, checker; a divergence must be caught)
harness-test: setup build
	python3 -m unittest discover -s Tests/FaultHarness -p 'test_*.py'

## server: start a local Kinto on 127.0.0.1:8888 seeded from Fixtures/ (stop: make server-stop)
server: setup
	@Scripts/kinto-server.sh start

server-stop:
	@Scripts/kinto-server.sh stop

## server-production: the production shape on 127.0.0.1:8888 — production.ini under gunicorn, WORKERS
## processes (default 4) × THREADS threads, PostgreSQL on a private cluster removed at stop; seeded like
## `make server` (stop: make server-production-stop)
THREADS ?= 2
server-production: setup
	@WORKERS=$(or $(WORKERS),4) THREADS=$(THREADS) Scripts/kinto-server.sh production

server-production-stop:
	@Scripts/kinto-server.sh stop

## bench-setup: PostgreSQL, GNU time, hyperfine, rsvg-convert (apt) and Kinto's PostgreSQL backend (.venv)
BENCH_APT_PACKAGES := postgresql time hyperfine curl librsvg2-bin
# The release products the benchmarks run, each built once it exists in Package.swift.
BENCH_PRODUCTS := shelf-sync shelf shelf-json-throughput shelf-bench-local-edits

bench-setup: setup $(VENV)/.bench-installed
	@if ! dpkg -s $(BENCH_APT_PACKAGES) >/dev/null 2>&1; then \
	  echo "Installing $(BENCH_APT_PACKAGES)"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(BENCH_APT_PACKAGES); \
	fi

$(VENV)/.bench-installed: $(VENV)/.postgresql-installed
	@touch $@

## bench-build: release builds (as `make release`) of the products the benchmarks run (those that exist yet)
bench-build:
	@for product in $(BENCH_PRODUCTS); do \
	  if grep -q "name: \"$$product\"" Package.swift; then \
	    echo "$(SWIFT) build $(RELEASE_FLAGS) --product $$product"; \
	    $(SWIFT) build $(RELEASE_FLAGS) --product $$product || exit 1; \
	  else \
	    echo "bench: '$$product' is not a product in Package.swift yet; its rows will be skipped."; \
	  fi; \
	done

## bench: Shelf vs kinto-http vs curl on a private Kinto + PostgreSQL (20k and 100k records; < 30 min)
bench: bench-setup bench-build
	$(VENV)/bin/python Benchmarks/bench.py $(BENCH_ARGS)

## bench-quick: the same, 20k records and fewer runs (a few minutes); exits 3 when a ratio got worse than the
## figures committed in Benchmarks/README.md by more than its noise
bench-quick: bench-setup bench-build
	$(VENV)/bin/python Benchmarks/bench.py --quick $(BENCH_ARGS)

## bench-scale: the scale curve — 10k, 100k and 1M records, first sync, idle, delta, search; plot in Benchmarks/results/scale.svg (< 30 min)
bench-scale: bench-setup bench-build
	$(VENV)/bin/python Benchmarks/bench_scale.py $(BENCH_ARGS)

## bench-sealed: end-to-end encryption beside plaintext in one run — first syncs of 10k and 100k books, idle runs
## within and after the commit window, a push of 1,000 edits (sealed libraries made offline by Tests/Interop's
## implementation of the format, seeded in bulk), then shelf-bench-sealed in-process (< 15 min)
bench-sealed: bench-setup bench-build
	$(VENV)/bin/python Benchmarks/bench_sealed.py $(BENCH_ARGS)
	$(SWIFT) build $(RELEASE_FLAGS) --product shelf-bench-sealed
	.build/release/shelf-bench-sealed --books 10000

## bench-devices: 10, 50 and 200 devices (each its own reader and store) running the release shelf-sync on a
## compressed cron against Kinto under gunicorn (WORKERS=4) on PostgreSQL: runs, p50/p99, requests and server
## CPU per run, where 2 cores saturate; Benchmarks/results/devices.svg and devices-latest.json (< 15 min)
bench-devices: bench-setup
	$(SWIFT) build $(RELEASE_FLAGS) --product shelf-sync
	$(SWIFT) build $(RELEASE_FLAGS) --product shelf
	$(VENV)/bin/python Benchmarks/bench_devices.py --workers $(or $(WORKERS),4) $(BENCH_ARGS)

## bench-projection: what 10^4, 10^5 and 10^6 devices cost the servers a day, today's engine and after range
## reconciliation, from the measured per-run costs (no server); Benchmarks/results/projection.svg and .png
bench-projection:
	python3 Benchmarks/projection.py
	@if command -v rsvg-convert >/dev/null; then rsvg-convert -w 1000 Benchmarks/results/projection.svg -o Benchmarks/results/projection.png && echo "Benchmarks/results/projection.png"; \
	else echo "rsvg-convert not installed (make bench-setup installs librsvg2-bin): the plot stays an SVG"; fi

## bench-micro: the store and repositories at 100,000 records, in-process (release)
bench-micro: apt-packages
	@mkdir -p Benchmarks/results
	$(SWIFT) run -c release StorageBench | tee Benchmarks/results/StorageBench.txt
	$(SWIFT) run -c release RepositoriesBench | tee Benchmarks/results/RepositoriesBench.txt

## bench-cli: `shelf books --search` (with and without --limit 50), a sort and `shelf --version` over 100,000 and
## 1,000,000 local books (release, hyperfine; SIZES="100000" for one size, RUNS=N)
bench-cli: apt-packages
	$(SWIFT) build $(RELEASE_FLAGS) --product shelf
	$(SWIFT) build $(RELEASE_FLAGS) --product LocalLibrarySeed
	Scripts/bench-cli.sh

## bench-ui: `shelf ui` over 100,000 local books on a pseudo-terminal: start-up to the first frame, each key to its
## frame's last byte (p50/p99), memory while scrolling (release; SIZE=N books, SCROLL=N keys)
bench-ui: apt-packages
	$(SWIFT) build $(RELEASE_FLAGS) --product shelf
	$(SWIFT) build $(RELEASE_FLAGS) --product LocalLibrarySeed
	python3 Scripts/bench-ui.py .build/release/shelf .build/release/LocalLibrarySeed $(or $(SIZE),100000) --scroll $(or $(SCROLL),600)

## bench-interchange: `shelf import` of a 10,000-row Goodreads export and `shelf export` of 100,000 books (release)
bench-interchange: apt-packages
	$(SWIFT) build $(RELEASE_FLAGS) --product shelf
	$(SWIFT) build $(RELEASE_FLAGS) --product LocalLibrarySeed
	Scripts/bench-interchange.sh

## bench-test: the harness's own tests (proxy, measurement, parsing, plot, the storage race against Shelf's rows)
bench-test: bench-setup
	$(SWIFT) build $(RELEASE_FLAGS) --product shelf-json-throughput
	$(VENV)/bin/python -m unittest discover -s Benchmarks/tests

clean:
	rm -rf .build .run
