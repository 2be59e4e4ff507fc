#!/usr/bin/env bash
# Here, before a GPU run: builds for sm_90, copies the binaries and their non-CUDA shared
# libraries into .dev/, packs that as .devpack/dev.tar.xz (small enough to carry; unpack it
# there with `tar xJf .devpack/dev.tar.xz`), and copies the peer scripts into .shared/. SIMKIT_SHARED names the folder that holds
# peers/ and device/bundle-libs, kept outside the repository (default: `shared` beside the
# checkout).
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=${SIMKIT_SHARED:-$(dirname "$PWD")/shared}
scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=90 -DSIMKIT_CUDA_COMPILE_ONLY=OFF -DSIMKIT_BUILD_BENCH=ON >/dev/null
rm -rf .dev .shared && mkdir -p .dev .shared
for f in $(find build -path build/CMakeFiles -prune -o -type f -executable \( -name 'test_*' -o -name 'bench_*' -o -name array_tour -o -name halo_check -o -name '*_check' -o -name 'from_cupy_*' -o -name simulate -o -name 'lib*plugin*.so' \) -print); do
  mkdir -p ".dev/$(dirname "${f#build/}")" && cp "$f" ".dev/${f#build/}"
done
"$shared/device/bundle-libs" .dev/devlib $(find .dev -type f -executable ! -path '.dev/devlib/*')
strip --strip-unneeded $(find .dev -type f -executable ! -path '.dev/devlib/*')
cp -r "$shared/peers" .shared/
# one solid stream with a large window: the binaries share most of their code, so it packs them 2.6x smaller
rm -rf .devpack && mkdir .devpack && tar cf - .dev | xz -T1 --lzma2=preset=6,dict=256MiB >.devpack/dev.tar.xz
du -sh .devpack .shared
