# Build and install the entitlement broker's tools, catalog, systemd unit and system user.
#
#   make                                  # release build of entitlementd, entitlementctl, widget-renderer
#   sudo make install                     # into /usr/local, then creates the `entitlements` user
#   make install DESTDIR=/tmp/stage PREFIX=/usr   # staged, as a distribution package builds it
#   sudo make uninstall
#   make docs                             # DocC archives of the library products in .build/docs/
#
# Variables: PREFIX (/usr/local), DESTDIR (empty), CONFIGURATION (release or debug), SWIFT (swift),
# BINARIES (a directory of already-built tools: install those and skip the build), SYSCONFDIR
# (/etc). The catalog and its .storekit file go to $(SYSCONFDIR)/entitlements/, where the tools
# look for a catalog when no flag or environment variable names one (the container they then use
# is /var/lib/entitlements/container, the unit's state directory); the unit goes to
# $(PREFIX)/lib/systemd/system/ with its paths rewritten for PREFIX and SYSCONFDIR, and the user
# to a sysusers.d file in $(PREFIX)/lib/sysusers.d/. The companion link's drop-in goes, rewritten
# the same way, to $(PREFIX)/share/entitlement-broker/entitlementd-companion.conf, where it does
# nothing until an administrator copies it into /etc/systemd/system/entitlementd.service.d/ (the
# unit keeps its network sandbox by default; the file says how to enable the link).
# Without DESTDIR, installing as root also creates the user at once with systemd-sysusers.

PREFIX ?= /usr/local
DESTDIR ?=
CONFIGURATION ?= release
SWIFT ?= swift
SYSCONFDIR ?= /etc

TOOLS := entitlementd entitlementctl widget-renderer
BINARIES ?= $(shell $(SWIFT) build -c $(CONFIGURATION) --show-bin-path)

bindir := $(PREFIX)/bin
catalogdir := $(SYSCONFDIR)/entitlements
docdir := $(PREFIX)/share/doc/entitlement-broker
unitdir := $(PREFIX)/lib/systemd/system
sysusersdir := $(PREFIX)/lib/sysusers.d
datadir := $(PREFIX)/share/entitlement-broker

# Tools handed in with BINARIES=DIR on the command line are installed as they are.
ifeq ($(origin BINARIES),command line)
build_step :=
else
build_step := build
endif

# The library products an app links, documented with the toolchain's own swift-symbolgraph-extract
# and docc (no plugin package): one .doccarchive each, warnings as errors.
DOC_MODULES := StoreKitFormats Entitlements SharedDefaults EntitlementDefaults FileWatch WidgetTimeline WatchExtension
DOCS ?= .build/docs
TRIPLE ?= $(shell uname -m)-unknown-linux-gnu

.PHONY: all build install uninstall docs

all: build

build:
	for tool in $(TOOLS); do $(SWIFT) build -c $(CONFIGURATION) --product $$tool || exit 1; done

install: $(build_step)
	install -d "$(DESTDIR)$(bindir)" "$(DESTDIR)$(catalogdir)" "$(DESTDIR)$(docdir)" \
		"$(DESTDIR)$(unitdir)" "$(DESTDIR)$(sysusersdir)" "$(DESTDIR)$(datadir)"
	for tool in $(TOOLS); do install -m 0755 "$(BINARIES)/$$tool" "$(DESTDIR)$(bindir)/$$tool" || exit 1; done
	install -m 0644 Shared/Catalog.json Shared/Geko.storekit "$(DESTDIR)$(catalogdir)/"
	install -m 0644 README.md "$(DESTDIR)$(docdir)/"
	sed -e 's|/etc/entitlements/|$(SYSCONFDIR)/entitlements/|g' -e 's|/usr/local/|$(PREFIX)/|g' \
		Shared/entitlementd.service > "$(DESTDIR)$(unitdir)/entitlementd.service"
	chmod 0644 "$(DESTDIR)$(unitdir)/entitlementd.service"
	sed -e 's|/etc/entitlements/|$(SYSCONFDIR)/entitlements/|g' -e 's|/usr/local/|$(PREFIX)/|g' \
		Shared/entitlementd-companion.conf > "$(DESTDIR)$(datadir)/entitlementd-companion.conf"
	chmod 0644 "$(DESTDIR)$(datadir)/entitlementd-companion.conf"
	install -m 0644 Shared/entitlements.sysusers "$(DESTDIR)$(sysusersdir)/entitlements.conf"
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v systemd-sysusers >/dev/null; then \
		systemd-sysusers "$(sysusersdir)/entitlements.conf"; \
	else \
		echo "The unit runs as user 'entitlements': create it with systemd-sysusers (the package's sysusers.d file does it at install)."; \
	fi

uninstall:
	for tool in $(TOOLS); do rm -f "$(DESTDIR)$(bindir)/$$tool"; done
	rm -f "$(DESTDIR)$(catalogdir)/Catalog.json" "$(DESTDIR)$(catalogdir)/Geko.storekit" \
		"$(DESTDIR)$(docdir)/README.md" "$(DESTDIR)$(unitdir)/entitlementd.service" \
		"$(DESTDIR)$(sysusersdir)/entitlements.conf" "$(DESTDIR)$(datadir)/entitlementd-companion.conf"
	-rmdir "$(DESTDIR)$(catalogdir)" "$(DESTDIR)$(docdir)" "$(DESTDIR)$(datadir)"

docs:
	for module in $(DOC_MODULES); do $(SWIFT) build --target $$module || exit 1; done
	modules="$$($(SWIFT) build --show-bin-path)/Modules"; \
	for module in $(DOC_MODULES); do \
		rm -rf "$(DOCS)/symbol-graphs/$$module" && mkdir -p "$(DOCS)/symbol-graphs/$$module" && \
		swift-symbolgraph-extract -module-name $$module -target $(TRIPLE) -I "$$modules" \
			-minimum-access-level public -output-dir "$(DOCS)/symbol-graphs/$$module" && \
		docc convert "Sources/$$module/$$module.docc" --additional-symbol-graph-dir "$(DOCS)/symbol-graphs/$$module" \
			--fallback-display-name $$module --fallback-bundle-identifier com.irenews.entitlement-broker.$$module \
			--warnings-as-errors --output-path "$(DOCS)/$$module.doccarchive" || exit 1; \
	done
