#!/usr/bin/env bash
# Make the docker executor usable here, offline: install docker.io (Debian) if missing, start
# dockerd if no engine answers, and build the sandbox image once (a minimal Debian root with
# python3, made by debootstrap from the mirror apt already uses, then `docker import`).
# Idempotent and quick once done (the image is kept by tag). Where any step cannot work (not
# root, no apt, no engine) it says why and exits 0, so the docker tests skip with the reason.
#   RAGCODE_SANDBOX_IMAGE  image tag to build (default ragcode-sandbox:bookworm)
#   RAGCODE_DOCKERD_WAIT   seconds to wait for a started dockerd (default 60)
set -uo pipefail
IMAGE="${RAGCODE_SANDBOX_IMAGE:-ragcode-sandbox:bookworm}"
WAIT="${RAGCODE_DOCKERD_WAIT:-60}"
LOG=/var/log/ragcode-dockerd.log

skip() { echo "docker sandbox: $*; the docker executor tests will skip" >&2; exit 0; }
say() { echo "docker sandbox: $*" >&2; }
engine_up() { timeout 10 docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }
is_root_apt() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }
apt_install() {
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1 \
        || { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null; }
}

# 1. an engine
if ! engine_up; then
    if ! command -v dockerd >/dev/null 2>&1; then
        is_root_apt || skip "no docker engine answers and docker.io cannot be installed (needs root and apt-get)"
        say "installing docker.io"
        apt_install docker.io || skip "apt-get install docker.io failed"
    fi
    command -v docker >/dev/null 2>&1 || skip "dockerd is installed but the docker CLI is not"
    [ "$(id -u)" = 0 ] || skip "no docker engine answers this user (not in the docker group?) and only root can start dockerd"
    if ! pgrep -x dockerd >/dev/null 2>&1; then
        say "starting dockerd (log: $LOG)"
        setsid dockerd >"$LOG" 2>&1 < /dev/null &
    fi
    for _ in $(seq 1 "$WAIT"); do engine_up && break; sleep 1; done
    engine_up || skip "dockerd did not answer within ${WAIT}s (last log lines: $(tail -n 3 "$LOG" 2>/dev/null | tr '\n' ' '))"
fi

# 2. the image, once
if docker image inspect "$IMAGE" >/dev/null 2>&1; then
    say "engine up, image $IMAGE present"
    exit 0
fi
is_root_apt || skip "image $IMAGE is missing and building it needs root and apt-get (debootstrap)"
command -v debootstrap >/dev/null 2>&1 || apt_install debootstrap || skip "apt-get install debootstrap failed"
. /etc/os-release
SUITE="${VERSION_CODENAME:-bookworm}"
# the mirror apt uses: deb822 "URIs:" lines, else one-line "deb URL suite" entries
MIRROR=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -n 1)
[ -n "$MIRROR" ] || MIRROR=$(grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
                             | awk '{print $2}' | grep -v security | grep -i debian | head -n 1)
[ -n "$MIRROR" ] || MIRROR=http://deb.debian.org/debian
ROOT=$(mktemp -d /var/tmp/ragcode-rootfs-XXXXXX)
trap 'rm -rf "$ROOT"' EXIT
say "building $IMAGE: debootstrap $SUITE from $MIRROR"
start=$(date +%s)
if ! debootstrap --variant=minbase --include=python3,python-is-python3 "$SUITE" "$ROOT" "$MIRROR" \
        >"$ROOT.log" 2>&1; then
    tail -n 5 "$ROOT.log" >&2
    skip "debootstrap failed (log above)"
fi
rm -f "$ROOT.log"
rm -rf "$ROOT"/var/cache/apt/archives/*.deb "$ROOT"/var/lib/apt/lists/* "$ROOT"/usr/share/doc \
       "$ROOT"/usr/share/man "$ROOT"/usr/share/info "$ROOT"/usr/share/locale
tar -C "$ROOT" --numeric-owner -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' --change 'LABEL ragcode.sandbox.image=1' --change 'CMD ["/bin/bash"]' \
    - "$IMAGE" >/dev/null || skip "docker import failed"
say "built $IMAGE in $(( $(date +%s) - start ))s"
