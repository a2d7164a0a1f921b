#!/usr/bin/env bash
# `make images`: the container images of Vigil, built here from Debian packages and the build JDK, with no
# container registry (docs/adr/0007-container-images.md, docs/installation.md).
#
#   images.sh [build] [--no-package] [name...]   build the images (default: all) into the local podman
#                                    store as localhost/vigil/<name>:<version>, and their OCI and docker
#                                    archives into .local/images/. Packages the Quarkus apps with Maven
#                                    first unless --no-package (then they must be packaged already).
#   images.sh archive <name>         print the docker-archive path of one image (for `ctr images import`),
#                                    building the image first when it is missing or stale
#   images.sh oci-archive <name>     the same for the OCI archive (for skopeo copy / podman push)
#   images.sh ref <name>             print the image reference (localhost/vigil/<name>:<version>)
#   images.sh list                   names, references, sizes and archives
#   images.sh registry-bin           print the path of a docker-registry binary (Debian's docker-registry
#                                    package, downloaded and unpacked into the cache, not installed: the
#                                    package would start a registry service on :5000); for the push/pull test
#
# Names: engine, relay, operator (Quarkus fast-jars on a jlink runtime, no shell) and loadtest-runner
# (the k6 binary of tools.sh, with busybox for the k6-operator's `sh -c` initializer).
#
# A second run costs seconds: the Debian root filesystem and the Java base image are cached by content
# key (debootstrap and jlink run once), and podman reuses the layers of unchanged applications.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
BIN="$ROOT/environments/local/bin"
CACHE_DIR="${VIGIL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vigil}/images"
OUT="$ROOT/.local/images"
export CONTAINERS_CONF="$ROOT/images/containers.conf"

ALL_IMAGES=(engine relay operator loadtest-runner)
DEBIAN_SUITE=bookworm
DEBIAN_MIRROR="${VIGIL_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# minbase already has libc6, libgcc-s1 and zlib1g; busybox-static is the runner's shell.
DEBIAN_PACKAGES=ca-certificates,busybox-static
# The Java modules the three Quarkus apps need (jdeps over their fast-jars, then verified by running
# each image: ImagesTest). jdk.management: process CPU and memory metrics (com.sun.management);
# java.security.sasl/jgss: Kafka SASL for an external Kafka; java.desktop: java.beans, used by Jackson and
# the fabric8 model; jdk.naming.dns: JNDI DNS lookups; jdk.crypto.ec: TLS with EC keys.
JAVA_MODULES=java.base,java.desktop,java.logging,java.management,java.naming,java.net.http,java.security.jgss,java.security.sasl,java.sql,java.xml,jdk.crypto.ec,jdk.management,jdk.naming.dns,jdk.unsupported,jdk.zipfs
RUNTIME_UID=10001
# The k6 runner's user, as the operator renders it (LoadTestPlanner.K6_UID, the grafana/k6 image's user).
RUNNER_UID=12345

log() { echo "==> [images] $*" >&2; }
die() { echo "images.sh: $*" >&2; exit 1; }

project_version() {
  local v
  v=$(sed -n 's:^  <version>\(.*\)</version>.*:\1:p' "$ROOT/pom.xml" | head -1)
  [ -n "$v" ] || die "no <version> in $ROOT/pom.xml"
  echo "${v%-SNAPSHOT}"
}
VERSION="$(project_version)"

ref_of() { echo "localhost/vigil/$1:$VERSION"; }

known() {
  local n
  for n in "${ALL_IMAGES[@]}"; do [ "$n" = "$1" ] && return 0; done
  die "unknown image '$1' (known: ${ALL_IMAGES[*]})"
}

# The Quarkus fast-jar (target/quarkus-app) each image packages.
app_dir() {
  case "$1" in
    engine) echo "$ROOT/engine/service/target/quarkus-app" ;;
    relay) echo "$ROOT/engine/relay/target/quarkus-app" ;;
    operator) echo "$ROOT/operator/controller/target/quarkus-app" ;;
  esac
}

# The ports each app listens on (the pod specs' containerPorts), declared with EXPOSE.
app_ports() {
  case "$1" in
    engine) echo "8081 9081" ;;
    relay) echo "9091" ;;
    operator) echo "9191" ;;
  esac
}

# ---- machine prerequisites -------------------------------------------------------------------------

ensure_deps() {
  local missing=() pkgs=()
  command -v podman >/dev/null 2>&1 || { missing+=(podman); pkgs+=(podman); }
  [ -x /usr/sbin/runc ] || command -v runc >/dev/null 2>&1 || { missing+=(runc); pkgs+=(runc); }
  command -v debootstrap >/dev/null 2>&1 || [ -x /usr/sbin/debootstrap ] || { missing+=(debootstrap); pkgs+=(debootstrap); }
  command -v skopeo >/dev/null 2>&1 || { missing+=(skopeo); pkgs+=(skopeo); }
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && sudo="sudo" \
      || die "missing ${missing[*]}: install them as root (apt-get install -y ${pkgs[*]}), then run make images again"
  fi
  command -v apt-get >/dev/null 2>&1 \
    || die "missing ${missing[*]} and no apt-get to install them: install ${pkgs[*]} with your package manager"
  log "installing ${pkgs[*]} from Debian packages"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq -o DPkg::Lock::Timeout=300 "${pkgs[@]}" >/dev/null \
    || die "could not install ${pkgs[*]} (apt-get install failed)"
}

java_home() { "$BIN/java-home.sh"; }

# ---- the Debian root filesystem (debootstrap, cached) ------------------------------------------------

rootfs_dir() {
  echo "$CACHE_DIR/debian-$DEBIAN_SUITE-$(echo "$DEBIAN_SUITE $DEBIAN_PACKAGES" | sha256sum | cut -c1-10)"
}

ensure_rootfs() {
  local dir tmp start
  dir=$(rootfs_dir)
  [ -f "$dir/.complete" ] && return 0
  mkdir -p "$CACHE_DIR"
  exec 8>"$CACHE_DIR/.lock-rootfs"
  flock 8
  if [ ! -f "$dir/.complete" ]; then
    tmp="$dir.tmp-$$"
    rm -rf "$tmp" "$dir"
    start=$SECONDS
    log "debootstrap $DEBIAN_SUITE (minbase + $DEBIAN_PACKAGES) from $DEBIAN_MIRROR; once, about a minute"
    # debootstrap prints one line per step; show the stages only.
    if ! debootstrap --variant=minbase --include="$DEBIAN_PACKAGES" "$DEBIAN_SUITE" "$tmp" "$DEBIAN_MIRROR" 2>&1 \
        | grep --line-buffered -E '^I: (Retrieving Release|Validating Packages|Extracting|Installing core|Configuring|Base system)' \
        | sed -u 's/^I: /    /' >&2; then
      :
    fi
    [ -x "$tmp/usr/bin/busybox" ] && [ -f "$tmp/etc/ssl/certs/ca-certificates.crt" ] \
      || die "debootstrap of $DEBIAN_SUITE failed (see above); the mirror is $DEBIAN_MIRROR (VIGIL_DEBIAN_MIRROR)"
    touch "$tmp/.complete"
    mv "$tmp" "$dir"
    log "root filesystem ready in $((SECONDS - start))s ($dir)"
  fi
  exec 8>&-
}

# Copies into $1 the shared libraries (from the Debian root filesystem, not the host) that the ELF files
# $2... need, resolved by the host's ldd (the same Debian release, so the same sonames).
copy_libs() {
  local dest="$1" rootfs lib name src
  shift
  rootfs=$(rootfs_dir)
  mkdir -p "$dest/usr/lib/x86_64-linux-gnu" "$dest/usr/lib64"
  ln -sfn usr/lib "$dest/lib"
  ln -sfn usr/lib64 "$dest/lib64"
  # libgcc_s is loaded with dlopen by glibc when a thread is cancelled or unwinds; ldd does not list it.
  for lib in $( (ldd "$@" 2>/dev/null || true) | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | sort -u) \
      /lib/x86_64-linux-gnu/libgcc_s.so.1; do
    name=$(basename "$lib")
    case "$lib" in
      "$dest"/*) continue ;;  # a library of the image itself (the JRE's own)
    esac
    if [ "$name" = ld-linux-x86-64.so.2 ]; then
      cp -L "$rootfs/usr/lib/x86_64-linux-gnu/$name" "$dest/usr/lib/x86_64-linux-gnu/$name"
      ln -sfn ../lib/x86_64-linux-gnu/$name "$dest/usr/lib64/$name"
      continue
    fi
    src="$rootfs/usr/lib/x86_64-linux-gnu/$name"
    [ -e "$src" ] || die "library $name (needed by $(for f in "$@"; do ldd "$f" 2>/dev/null | grep -q "$name" && basename "$f"; done | tr '\n' ' ')) is not in the Debian root filesystem $rootfs"
    cp -L "$src" "$dest/usr/lib/x86_64-linux-gnu/$name"
  done
}

# /etc of a base image: one non-root user, name lookups from files and DNS, the CA bundle.
base_etc() {
  local dest="$1" uid="$2" user="$3" rootfs
  rootfs=$(rootfs_dir)
  mkdir -p "$dest/etc/ssl/certs" "$dest/tmp" "$dest/usr/share/doc"
  chmod 1777 "$dest/tmp"
  printf 'root:x:0:0:root:/root:/sbin/nologin\n%s:x:%s:%s:%s:/tmp:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' \
    "$user" "$uid" "$uid" "$user" > "$dest/etc/passwd"
  printf 'root:x:0:\n%s:x:%s:\nnogroup:x:65534:\n' "$user" "$uid" > "$dest/etc/group"
  printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$dest/etc/nsswitch.conf"
  cp -L "$rootfs/etc/ssl/certs/ca-certificates.crt" "$dest/etc/ssl/certs/"
  # The licences of the Debian packages the image carries files of.
  local p
  for p in libc6 libgcc-s1 zlib1g ca-certificates busybox-static; do
    [ -f "$rootfs/usr/share/doc/$p/copyright" ] || continue
    mkdir -p "$dest/usr/share/doc/$p"
    cp "$rootfs/usr/share/doc/$p/copyright" "$dest/usr/share/doc/$p/"
  done
}

# ---- base images -------------------------------------------------------------------------------------

# A base image built from a directory that FILL assembles, tagged localhost/vigil/NAME:<key>: a hash of
# KEY (what the content depends on), the Debian root filesystem and images/NAME/Containerfile, so it is
# rebuilt only when one of them changes. Prints the reference.
base_ref() {
  echo "localhost/vigil/$1:$(echo "$2 $(rootfs_dir) $(sha256sum < "$ROOT/images/$1/Containerfile")" | sha256sum | cut -c1-12)"
}

ensure_base() {
  local name="$1" key="$2" fill="$3" ref ctx start
  ref=$(base_ref "$name" "$key")
  podman image exists "$ref" && { echo "$ref"; return 0; }
  ensure_rootfs
  start=$SECONDS
  ctx="$OUT/build/$name"
  rm -rf "$ctx"; mkdir -p "$ctx"
  "$fill" "$ctx"
  log "$name: podman build $ref"
  podman build -q -f "$ROOT/images/$name/Containerfile" -t "$ref" "$ctx" >/dev/null
  rm -rf "$ctx"
  log "$name: ready in $((SECONDS - start))s ($(size_of "$ref"))"
  echo "$ref"
}

# The Java base: the jlink runtime of the build JDK at /opt/java/openjdk (where eclipse-temurin has it),
# the libraries it links, /etc basics. No shell, no package manager.
fill_java_base() {
  local ctx="$1" jh
  jh=$(java_home)
  log "java-base: jlink of $jh ($("$jh/bin/java" -version 2>&1 | head -1)), modules $JAVA_MODULES"
  "$jh/bin/jlink" --add-modules "$JAVA_MODULES" --strip-debug --no-man-pages --no-header-files \
    --compress=zip-6 --generate-cds-archive --output "$ctx/opt/java/openjdk" >&2
  # Headless: java.desktop (java.beans) brings the X11, sound and splash-screen libraries, which link
  # libraries a server image does not carry. The JDK loads the headless AWT instead (java.awt.headless).
  rm -f "$ctx/opt/java/openjdk/lib/"{libawt_xawt,libjawt,libsplashscreen,libjsound}.so
  # The CDS archive for heaps over 32 GB (no compressed oops): 14 MB these pods never use.
  rm -f "$ctx/opt/java/openjdk/lib/server/classes_nocoops.jsa"
  copy_libs "$ctx" "$ctx/opt/java/openjdk/bin/java" $(find "$ctx/opt/java/openjdk/lib" -name '*.so')
  base_etc "$ctx" "$RUNTIME_UID" vigil
}

# What a base's content depends on besides its Containerfile: the recipe (these functions' text) and its inputs.
recipe() { declare -f "$@" | sha256sum | cut -c1-10; }
java_base_key() {
  echo "$(sed -n 's/^JAVA_RUNTIME_VERSION=//p' "$(java_home)/release") $JAVA_MODULES $RUNTIME_UID $(recipe fill_java_base copy_libs base_etc)"
}
ensure_java_base() { ensure_base java-base "$(java_base_key)" fill_java_base; }

# The runner base: busybox (a shell and the few commands the k6-operator's initializer uses), CA bundle,
# the k6 user. k6 itself is the image's own layer.
fill_runner_base() {
  local ctx="$1" a
  mkdir -p "$ctx/usr/bin"
  base_etc "$ctx" "$RUNNER_UID" k6
  cp "$(rootfs_dir)/usr/bin/busybox" "$ctx/usr/bin/busybox"
  ln -sfn usr/bin "$ctx/bin"
  for a in sh cat dirname mkdir grep ls rm cp mv echo sleep env; do ln -sfn busybox "$ctx/usr/bin/$a"; done
}

runner_base_key() { echo "$RUNNER_UID $(recipe fill_runner_base base_etc)"; }
ensure_runner_base() { ensure_base runner-base "$(runner_base_key)" fill_runner_base; }

# ---- the images --------------------------------------------------------------------------------------

size_of() { podman image inspect --format '{{.Size}}' "$1" | awk '{printf "%.1f MB", $1 / 1e6}'; }

package_apps() {
  log "packaging engine, relay and operator (Maven, no tests; minutes on a cold build)"
  # One line per module built, and the errors.
  (cd "$ROOT" && JAVA_HOME="$(java_home)" ./mvnw -B --no-transfer-progress \
    -pl engine/service,engine/relay,operator/controller -am package -DskipTests) 2>&1 \
    | grep --line-buffered -E '^\[INFO\] Building .*\[|^\[ERROR\]|BUILD (SUCCESS|FAILURE)' | sed -u 's/^\[INFO\] /    /' >&2
}

build_one() {
  local name="$1" ref ctx base before after start
  ref=$(ref_of "$name")
  start=$SECONDS
  before=$(podman image inspect --format '{{.Id}}' "$ref" 2>/dev/null || true)
  case "$name" in
    engine|relay|operator)
      ctx=$(app_dir "$name")
      [ -f "$ctx/quarkus-run.jar" ] || die "$ctx/quarkus-run.jar is missing: package the app (make images does)"
      base=$(ensure_java_base)
      log "$name: podman build $ref (from $base)"
      podman build -q --build-arg "JAVA_BASE=$base" --build-arg "APP=$name" --build-arg "PORTS=$(app_ports "$name")" \
        -f "$ROOT/images/java-app/Containerfile" -t "$ref" "$ctx" >/dev/null
      ;;
    loadtest-runner)
      local k6
      k6=$("$BIN/tools.sh" path k6)
      base=$(ensure_runner_base)
      ctx="$OUT/build/loadtest-runner"
      rm -rf "$ctx"; mkdir -p "$ctx"
      # k6 from `go install` links glibc dynamically: its libraries come along.
      copy_libs "$ctx" "$k6"
      mkdir -p "$ctx/usr/bin"
      cp "$k6" "$ctx/usr/bin/k6"
      log "$name: podman build $ref (from $base, k6 $("$k6" version 2>/dev/null | awk '{print $2; exit}'))"
      podman build -q --build-arg "RUNNER_BASE=$base" -f "$ROOT/images/loadtest-runner/Containerfile" -t "$ref" "$ctx" >/dev/null
      ;;
  esac
  after=$(podman image inspect --format '{{.Id}}' "$ref")
  if [ "$before" = "$after" ]; then
    log "$name: unchanged ($ref, $(size_of "$ref"))"
  else
    log "$name: built in $((SECONDS - start))s ($ref, $(size_of "$ref"))"
  fi
  save_archives "$name"
}

archive_path() {
  case "$2" in
    docker) echo "$OUT/$1-$VERSION.docker.tar" ;;
    oci) echo "$OUT/$1-$VERSION.oci.tar" ;;
  esac
}

# OCI archive (skopeo copy / podman push to a registry) and docker archive (`ctr images import`), written
# only when the image changed. `podman save` silently keeps an existing file, so it writes a new name
# that then replaces the old one.
save_archives() {
  local name="$1" ref id stamp f fmt
  ref=$(ref_of "$name")
  id=$(podman image inspect --format '{{.Id}}' "$ref")
  stamp="$OUT/$name-$VERSION.id"
  mkdir -p "$OUT"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$id" ] \
      && [ -f "$(archive_path "$name" oci)" ] && [ -f "$(archive_path "$name" docker)" ]; then
    return 0
  fi
  for fmt in oci docker; do
    f=$(archive_path "$name" "$fmt")
    rm -f "$f.tmp-$$"
    podman save -q --format "$([ "$fmt" = oci ] && echo oci-archive || echo docker-archive)" -o "$f.tmp-$$" "$ref"
    mv -f "$f.tmp-$$" "$f"
  done
  echo "$id" > "$stamp"
  log "$name: archives $(archive_path "$name" oci) and .docker.tar"
}

build() {
  local package=1 names=() n start
  while [ $# -gt 0 ]; do
    case "$1" in
      --no-package) package=0 ;;
      -*) die "unknown option $1" ;;
      *) known "$1"; names+=("$1") ;;
    esac
    shift
  done
  [ ${#names[@]} -eq 0 ] && names=("${ALL_IMAGES[@]}")
  start=$SECONDS
  ensure_deps
  mkdir -p "$OUT"
  exec 9>"$OUT/.lock"
  flock 9
  if [ $package -eq 1 ]; then
    for n in "${names[@]}"; do
      [ "$n" = loadtest-runner ] || { package_apps; break; }
    done
  fi
  for n in "${names[@]}"; do build_one "$n"; done
  prune_replaced
  exec 9>&-
  log "images ready in $((SECONDS - start))s: $(for n in "${names[@]}"; do printf '%s ' "$(ref_of "$n")"; done)"
}

# Earlier builds of these images that a rebuild left without a name, then base images no image uses any
# more. Only Vigil's own: other images in the store are never touched.
prune_replaced() {
  local id title ref n
  for id in $(podman images --quiet --no-trunc --filter dangling=true 2>/dev/null); do
    title=$(podman image inspect --format '{{index .Labels "org.opencontainers.image.title"}}' "$id" 2>/dev/null || true)
    case "$title" in vigil-*) podman rmi "$id" >/dev/null 2>&1 || true ;; esac
  done
  for ref in $(podman images --format '{{.Repository}}:{{.Tag}}' 2>/dev/null | grep -E '^localhost/vigil/(java-base|runner-base):'); do
    case "$ref" in "$(base_ref java-base "$(java_base_key)")"|"$(base_ref runner-base "$(runner_base_key)")") continue ;; esac
    # Refused (and kept) while an image still builds on it.
    podman rmi "$ref" >/dev/null 2>&1 && log "removed the replaced base image $ref" || true
  done
}

list() {
  local n ref
  printf '%-16s %-40s %-10s %s\n' NAME REFERENCE SIZE ARCHIVES
  for n in "${ALL_IMAGES[@]}"; do
    ref=$(ref_of "$n")
    if podman image exists "$ref" 2>/dev/null; then
      printf '%-16s %-40s %-10s %s\n' "$n" "$ref" "$(size_of "$ref")" "$(ls "$(archive_path "$n" oci)" "$(archive_path "$n" docker)" 2>/dev/null | tr '\n' ' ')"
    else
      printf '%-16s %-40s %-10s %s\n' "$n" "$ref" "-" "not built (make images)"
    fi
  done
}

# The registry of Debian's docker-registry package, unpacked (not installed) into the cache.
registry_bin() {
  local dir="$CACHE_DIR/docker-registry" deb
  if [ ! -x "$dir/usr/bin/docker-registry" ]; then
    command -v apt-get >/dev/null 2>&1 || die "apt-get is needed to fetch Debian's docker-registry package"
    mkdir -p "$CACHE_DIR"
    exec 8>"$CACHE_DIR/.lock-registry"
    flock 8
    if [ ! -x "$dir/usr/bin/docker-registry" ]; then
      local tmp="$dir.tmp-$$"
      rm -rf "$tmp"; mkdir -p "$tmp"
      log "fetching Debian's docker-registry package (apt-get download; not installed)"
      (cd "$tmp" && { apt-get download -qq docker-registry >/dev/null 2>&1 \
        || { apt-get update -qq >/dev/null && apt-get download -qq docker-registry >/dev/null; }; }) \
        || die "could not download the docker-registry package (apt-get download docker-registry)"
      deb=$(ls "$tmp"/docker-registry_*.deb)
      dpkg-deb -x "$deb" "$tmp/root"
      rm -rf "$dir"; mv "$tmp/root" "$dir"; rm -rf "$tmp"
    fi
    exec 8>&-
  fi
  echo "$dir/usr/bin/docker-registry"
}

main() {
  local cmd="${1:-build}"
  case "$cmd" in
    archive|oci-archive)
      [ $# -eq 2 ] || die "usage: images.sh $cmd <name>"
      known "$2"
      # Rebuilding an unchanged image costs a second (cached layers); packaging only when the app is missing.
      if [ "$2" != loadtest-runner ] && [ ! -f "$(app_dir "$2")/quarkus-run.jar" ]; then build "$2" >&2; else build --no-package "$2" >&2; fi
      archive_path "$2" "$([ "$cmd" = archive ] && echo docker || echo oci)"
      ;;
    ref)
      [ $# -eq 2 ] || die "usage: images.sh ref <name>"
      known "$2"; ref_of "$2" ;;
    list) list ;;
    registry-bin) registry_bin ;;
    build) shift; build "$@" ;;
    -*|engine|relay|operator|loadtest-runner) build "$@" ;;
    *) die "unknown command '$cmd' (build, archive, oci-archive, ref, list, registry-bin)" ;;
  esac
}

main "$@"; exit  # on one line: a script edited while it runs is not read past here
