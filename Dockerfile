# apns-emulator image: build with the official Swift toolchain image on Debian 12, run on debian:bookworm-slim.
#
#   docker build -t apns-emulator .
#   docker run --rm -p 127.0.0.1:2197:2197 -p 127.0.0.1:2198:2198 -p 127.0.0.1:2199:2199 -p 127.0.0.1:8765:8765 apns-emulator
#   curl -H 'Authorization: Bearer apns-emulator-dev' http://127.0.0.1:8765/_emulator/keys
#
# The image takes exactly the `apns-emulator` command line: `docker run apns-emulator serve --help`.

# Keep this on the Swift release the package is developed with (6.3) and on Debian 12 (bookworm), the same
# distribution whose packages scripts/install-deps.sh names.
ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS builder
WORKDIR /src
# Dependencies first, in their own layer, so source edits do not reinstall them.
COPY scripts/install-deps.sh scripts/install-deps.sh
RUN scripts/install-deps.sh --build-only && rm -rf /var/lib/apt/lists/*
COPY . .
# --static-swift-stdlib links the Swift runtime and Foundation into the binary; the final stage then needs only
# the C libraries from `install-deps.sh --runtime-only` (plus libstdc++6, which every Debian image has).
# `certs` keeps the files the repository ships and creates only what is missing.
RUN swift build -c release --static-swift-stdlib --product apns-emulator \
    && mkdir -p /out \
    && cp "$(swift build -c release --static-swift-stdlib --show-bin-path)/apns-emulator" /out/ \
    && if [ -d certs ]; then cp -R certs /out/certs; fi \
    && /out/apns-emulator certs --out /out/certs

FROM ${RUNTIME_IMAGE}
COPY scripts/install-deps.sh /usr/local/lib/apns-emulator/install-deps.sh
RUN /usr/local/lib/apns-emulator/install-deps.sh --runtime-only \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --home-dir /opt/apns-emulator --no-create-home apns \
    && mkdir -p /opt/apns-emulator /var/lib/apns-emulator \
    && chown apns:apns /opt/apns-emulator /var/lib/apns-emulator
COPY --from=builder /out/apns-emulator /usr/local/bin/apns-emulator
# Development certificates: test-only, never trust their CA outside tests (see README).
COPY --from=builder --chown=apns:apns /out/certs /opt/apns-emulator/certs

# Emulator state (signing keys, device tokens, faults): `serve --state-dir` below keeps it here across restarts. The
# working folder is the apns user's too, so a command line without --state-dir (its default, .emulator-state)
# also starts.
VOLUME ["/var/lib/apns-emulator"]
WORKDIR /opt/apns-emulator
USER apns

# 2197: production APNs host, 2198: sandbox APNs host (TLS + HTTP/2); 2199: FCM and OneSignal front doors (TLS +
# HTTP/1.1); 8765: control API (plain HTTP/1.1).
EXPOSE 2197 2198 2199 8765

# Control API token: bound to 0.0.0.0 inside the container, `serve` refuses to start without one. This default is
# public (it is in this file, docker-compose.yml and scripts/scale/prometheus.yml), so override it wherever the
# control port is reachable by anyone else, and give Prometheus the same one:
#   docker run -e APNS_EMULATOR_CONTROL_TOKEN=<secret> ...
# Control requests (and /metrics) then carry `Authorization: Bearer <token>`; GET /_emulator/health stays open for
# the HEALTHCHECK.
# Publish the ports on 127.0.0.1 only (as docker-compose.yml does) unless others must reach them.
ENV APNS_EMULATOR_CONTROL_TOKEN=apns-emulator-dev

HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD curl -fsS http://127.0.0.1:8765/_emulator/health || exit 1

ENTRYPOINT ["apns-emulator"]
CMD ["serve", "--host", "0.0.0.0", "--certs", "/opt/apns-emulator/certs", "--state-dir", "/var/lib/apns-emulator"]
