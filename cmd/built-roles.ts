/**
 * The roles that are built, each loaded only when it runs (or for help), so one process never loads another
 * role's dependencies. README's role table lists exactly these as built (e2e/build/readme.test.ts checks it).
 */
import type { Command } from 'commander';

export const BUILT_ROLES: Readonly<Record<string, () => Promise<Command>>> = {
  api: async () => (await import('./api.ts')).apiCommand(),
  controller: async () => (await import('./controller.ts')).controllerCommand(),
  handler: async () => (await import('./handler.ts')).handlerCommand(),
  launcher: async () => (await import('./launcher.ts')).launcherCommand(),
  operator: async () => (await import('./operator.ts')).operatorCommand(),
  'pr-helper': async () => (await import('./pr-helper.ts')).prHelperCommand(),
  rewriter: async () => (await import('./rewriter.ts')).rewriterCommand(),
};
