/** The rewriter rules around an in-process KubeClient. */
export { rewritingClient } from './rewriting-client.ts';
