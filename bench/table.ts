/** Bench row type and the plain-text table `npm run bench` prints (markdown, so it pastes into notes). */
export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  note?: string;
}

export interface BenchContext {
  kubeconfigPath: string;
  log: (msg: string) => void;
}

export type BenchFn = (ctx: BenchContext) => Promise<BenchRow[]>;

function fmt(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const abs = Math.abs(v);
  if (abs >= 1000) return v.toFixed(0);
  if (abs >= 10) return v.toFixed(1);
  return v.toFixed(3);
}

export function formatTable(rows: ReadonlyArray<{ file: string; row: BenchRow }>): string {
  const lines = ['| bench | measure | value | unit | note |', '|---|---|---:|---|---|'];
  for (const { file, row } of rows) {
    lines.push(
      `| ${file.replace(/\.bench\.ts$/, '')} | ${row.name} | ${fmt(row.value)} | ${row.unit} | ${row.note ?? ''} |`,
    );
  }
  return lines.join('\n');
}
