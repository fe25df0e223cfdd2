// The integration run's order: jest's own (slowest and failed files first), except that the end-to-end scenarios,
// which share the operator's install on the local cluster, run last and together, after the local-cluster files
// that run roles of their own and take that install down. One install serves them all.
import Sequencer from '@jest/test-sequencer';

const DefaultSequencer = Sequencer.default ?? Sequencer;
const isScenario = (test) => test.path.includes('/e2e/scenarios/');

export default class ScenariosLast extends DefaultSequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    return [...sorted.filter((t) => !isScenario(t)), ...sorted.filter(isScenario)];
  }
}
