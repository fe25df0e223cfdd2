/** Test entry: `node --import tsx lib/launcher/testdata/run-launcher.ts <launcher flags>` runs `virt launcher`. */
import { launcherCommand } from '../../../cmd/launcher.ts';

await launcherCommand().parseAsync(process.argv);
