/** The rewriter's IO shell (the kube-api and webhook proxies, wired by ../role.ts): what cmd/rewriter.ts reads. */
export { DEFAULT_MAX_BODY_BYTES } from './deps.ts';
