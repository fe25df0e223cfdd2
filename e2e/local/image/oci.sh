# shellcheck shell=bash
# oci_archive ROOTFS NAME OUT [ENTRYPOINT_JSON]: packs the directory ROOTFS as a one-layer OCI image
# named NAME (e.g. localhost/kubevirt-ts-pause:local) into the OCI layout tar OUT, the form
# `ctr images import` takes: blobs (gzip layer, config, manifest), index.json whose manifest carries the
# io.containerd.image.name annotation, oci-layout. Reproducible: sorted entries, owner 0, mtime 0.
oci_archive() {
  local rootfs=$1 name=$2 out=$3 entrypoint=${4:-null}
  local work
  work=$(mktemp -d "${out}.XXXXXX")
  mkdir -p "$work/blobs/sha256"
  tar --sort=name --numeric-owner --owner=0 --group=0 --mtime=@0 -C "$rootfs" -cf "$work/layer.tar" .
  local diff_id
  diff_id=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
  gzip -n -1 "$work/layer.tar"
  local layer layer_size
  layer=$(_oci_blob "$work" "$work/layer.tar.gz")
  layer_size=$(stat -c %s "$work/blobs/sha256/$layer")
  printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":%s,"WorkingDir":"/"},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"history":[{"created_by":"e2e/local/image/oci.sh"}]}' \
    "$entrypoint" "$diff_id" >"$work/config.json"
  local config config_size
  config_size=$(stat -c %s "$work/config.json")
  config=$(_oci_blob "$work" "$work/config.json")
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:%s","size":%s}]}' \
    "$config" "$config_size" "$layer" "$layer_size" >"$work/manifest.json"
  local manifest manifest_size
  manifest_size=$(stat -c %s "$work/manifest.json")
  manifest=$(_oci_blob "$work" "$work/manifest.json")
  printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}]}' \
    "$manifest" "$manifest_size" "$name" "${name##*:}" >"$work/index.json"
  printf '{"imageLayoutVersion":"1.0.0"}' >"$work/oci-layout"
  tar --sort=name --numeric-owner --owner=0 --group=0 --mtime=@0 -C "$work" -cf "$out.tmp" oci-layout index.json blobs
  mv "$out.tmp" "$out"
  rm -rf "$work"
}

# _oci_blob WORK FILE: moves FILE into WORK/blobs/sha256/<digest>; prints the digest.
_oci_blob() {
  local d
  d=$(sha256sum "$2" | cut -d' ' -f1)
  mv "$2" "$1/blobs/sha256/$d"
  echo "$d"
}
