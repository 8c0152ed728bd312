#!/usr/bin/env bash
# Build postflop-solver (github.com/b-inary/postflop-solver, AGPL; not part of rcfr) offline
# with Debian's Rust crates, plus the small programs in this folder, for bench_spots.py and
# the action-tree test data. Idempotent: rerun it after editing a program here.
#
#   benchmarks/postflop_solver/build.sh SOURCE [BUILD_DIR]
#
# SOURCE: a checkout of postflop-solver, or a bare git directory of it (or $PFS_SOURCE);
# BUILD_DIR (default $PFS_DIR, else ~/.cache/rcfr/pfs) receives a copy of its source (never
# this repository). Needs cargo and rustc, and the crates of `apt-get install
# librust-regex-dev librust-once-cell-dev librust-rayon-dev` (in /usr/share/cargo/registry,
# or $PFS_REGISTRY). The copy's Cargo.toml is rewritten: the version pins relaxed to what
# Debian ships, bincode and zstd (file I/O) dropped. Built with -C target-cpu=native (numba
# compiles rcfr for the host too). The programs land in
# BUILD_DIR/postflop-solver/target/release/examples/.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_dir="${1:-${PFS_SOURCE:-}}"
build_dir="${2:-${PFS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rcfr/pfs}}"
registry="${PFS_REGISTRY:-/usr/share/cargo/registry}"

die() { echo "error: $*" >&2; exit 2; }

command -v cargo >/dev/null || die "cargo is missing (apt-get install cargo rustc)"
command -v rustc >/dev/null || die "rustc is missing (apt-get install cargo rustc)"
for crate in regex once_cell rayon; do
    compgen -G "$registry/$crate-[0-9]*" >/dev/null \
        || die "the $crate crate is not in $registry (apt-get install librust-regex-dev librust-once-cell-dev librust-rayon-dev)"
done
[ -n "$source_dir" ] || die "give postflop-solver's source (a checkout or a bare git directory) as the first argument"
[ -e "$source_dir" ] || die "no postflop-solver source at $source_dir"

src="$build_dir/postflop-solver"
mkdir -p "$src"
if [ -d "$source_dir/objects" ] && [ -f "$source_dir/HEAD" ]; then  # a bare git directory
    commit="$(git --git-dir="$source_dir" rev-parse HEAD)"
    git --git-dir="$source_dir" archive HEAD | tar -x -C "$src"
elif [ -d "$source_dir/src" ]; then
    commit="$(git -C "$source_dir" rev-parse HEAD 2>/dev/null || echo unknown)"
    (cd "$source_dir" && tar -c --exclude=./target --exclude=./.git .) | tar -x -C "$src"
else
    die "$source_dir is neither a postflop-solver checkout nor its bare git directory"
fi
echo "$commit" > "$src/COMMIT"

# the copy's manifest: Debian's crate versions, no file I/O (bincode, zstd), rayon by default
cat > "$src/Cargo.toml" <<'TOML'
[package]
name = "postflop-solver"
version = "0.1.0"
edition = "2021"
license = "AGPL-3.0-or-later"

[dependencies]
once_cell = "1"
rayon = { version = "1", optional = true }
regex = "1"

[features]
default = ["rayon"]
custom-alloc = []
rayon = ["dep:rayon"]

[profile.release]
debug = false
TOML
rm -f "$src/Cargo.lock" "$src/examples/file_io.rs"

mkdir -p "$src/.cargo"
cat > "$src/.cargo/config.toml" <<TOML
[source.crates-io]
replace-with = "debian"

[source.debian]
directory = "$registry"

[net]
offline = true

# newer rustc denies a lint the 2023 source trips (dangerous_implicit_autorefs): warn only;
# native code, as numba compiles rcfr's kernels for the machine it runs on
[build]
rustflags = ["--cap-lints", "warn", "-C", "target-cpu=native"]
TOML

# this folder's programs (rcfr's own code) become examples of the copy
for program in "$here"/*.rs; do
    [ -e "$program" ] && cp "$program" "$src/examples/"
done

cd "$src"
cargo build --release --offline --examples
echo "postflop-solver $commit built in $src/target/release/examples"
