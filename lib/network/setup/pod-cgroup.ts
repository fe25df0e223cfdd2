/**
 * Which Pod a process belongs to, from the text of its /proc/<pid>/cgroup (the kubelet puts every container of
 * a Pod under the Pod's own cgroup: `pod<uid>` with the cgroupfs driver, `…-pod<uid with underscores>.slice`
 * with the systemd one, in cgroup v1 and v2 alike). The handler finds a launcher Pod's network namespace
 * through a process of that Pod: the kernel writes this file, no tenant does. Pure.
 */

const UID = /^[0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12}$/;

/** The Pod uid of one path segment (`pod<uid>` or a systemd `…-pod<uid>.slice`), dashes restored. */
function podUidOfSegment(segment: string): string | undefined {
  const name = segment.endsWith('.slice') ? segment.slice(segment.lastIndexOf('-pod') + 1, -6) : segment;
  if (!name.startsWith('pod')) return undefined;
  const uid = name.slice(3);
  return UID.test(uid) ? uid.replaceAll('_', '-') : undefined;
}

/** The uid of the Pod whose cgroup holds the process, or undefined (not in a Pod, or unreadable text). */
export function podUidOfCgroup(text: string): string | undefined {
  for (const line of text.split('\n')) {
    // hierarchy-ID:controllers:path; the path may itself hold colons.
    const path = line.split(':').slice(2).join(':');
    for (const segment of path.split('/').reverse()) {
      const uid = podUidOfSegment(segment);
      if (uid !== undefined) return uid;
    }
  }
  return undefined;
}
