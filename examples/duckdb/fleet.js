// The DuckDB recipe (docs/export.md): loads `ttd export --what calls`
// files of several runs into DuckDB, writes them as one Parquet file with
// a `run` column (what Spark, Trino or DuckDB read at fleet scale), then
// answers a question across the runs from the Parquet file: every run in
// which function F returned -1 (as a C int: return_i32).
//
//   node fleet.js OUT.parquet FUNCTION RUN=calls.jsonl [RUN=calls.jsonl ...]
//
// FUNCTION is the callee's entry address (decimal or 0x-hex, as in the
// export's `function` column). Needs DuckDB's Node package
// (@duckdb/node-api, engine bundled) on NODE_PATH or beside this file;
// scripts/install-duckdb-node.sh puts it under build/npm.
'use strict';
const { DuckDBInstance } = require('@duckdb/node-api');

function quote(s) {
  return "'" + String(s).replace(/'/g, "''") + "'";
}

async function main() {
  const [out, fn, ...runs] = process.argv.slice(2);
  if (!out || !fn || runs.length === 0) {
    console.error('usage: node fleet.js OUT.parquet FUNCTION RUN=calls.jsonl [...]');
    process.exit(2);
  }
  const func = BigInt(fn);
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  // One table for every run's calls; the JSON reader's types are given,
  // not guessed, so a run without any -1 still has the same columns.
  const columns = "{call: 'UBIGINT', thread: 'UBIGINT', depth: 'UBIGINT', function: 'UBIGINT', " +
    "function_pc: 'UBIGINT', call_site: 'UBIGINT', entry_eid: 'UBIGINT', exit_eid: 'UBIGINT', " +
    "exit: 'VARCHAR', return_value: 'UBIGINT', return_i32: 'INTEGER', args: 'VARCHAR', symbol: 'VARCHAR'}";
  const selects = runs.map((r) => {
    const eq = r.indexOf('=');
    if (eq <= 0) throw new Error(`expected RUN=FILE, got '${r}'`);
    const name = r.slice(0, eq), file = r.slice(eq + 1);
    return `SELECT ${quote(name)} AS run, * FROM read_json(${quote(file)}, format = 'newline_delimited', columns = ${columns})`;
  });
  await con.run(`CREATE TABLE calls AS ${selects.join(' UNION ALL ')}`);
  await con.run(`COPY calls TO ${quote(out)} (FORMAT PARQUET)`);
  const res = await con.runAndReadAll(
    `SELECT run, count(*) AS times, min(entry_eid) AS first_entry_eid FROM read_parquet(${quote(out)}) ` +
    `WHERE function = ${func} AND return_i32 = -1 GROUP BY run ORDER BY run`);
  const total = await con.runAndReadAll(`SELECT count(*) AS calls, count(DISTINCT run) AS runs FROM read_parquet(${quote(out)})`);
  const t = total.getRowObjects()[0];
  console.log(`parquet: ${out} (${t.calls} calls of ${t.runs} runs)`);
  console.log(`runs where 0x${func.toString(16)} returned -1:`);
  for (const row of res.getRowObjects())
    console.log(`  ${row.run}: ${row.times} time(s), first entered at EID ${row.first_entry_eid}`);
}

main().catch((e) => {
  console.error(`fleet.js: ${e.message}`);
  process.exit(1);
});
