// What the police phone shows offline, for tests/patrol/test_phone.py: the kit's lists looked up as
// static/js/patrol/phone.js does (flow.js listsOf, vesselByRegistration; verifier.js readClaims).
// Usage: node tests/js/patrol_cli.mjs case.json, case = {kit, asks: [{craft} | {vessel_id} | {token}]}
//   -> one {kind: [item ids] | {exempt: article}} per ask, as JSON on stdout.
import { readFile } from 'node:fs/promises';
import { listsOf, vesselByRegistration } from '../../static/js/patrol/flow.js';
import { readClaims } from '../../static/js/verifier.js';

const { kit, asks } = JSON.parse(await readFile(process.argv[2], 'utf8'));

function shown(ask) {
  if (ask.craft) return listsOf(kit, kit.crafts[ask.craft]);
  const vessel = ask.token ? vesselByRegistration(kit, (readClaims(ask.token) || {}).registration)
    : kit.vessels.find((known) => known.id === ask.vessel_id);
  return vessel ? listsOf(kit, vessel.lists) : kit.unknown;
}

process.stdout.write(JSON.stringify(asks.map((ask) => Object.fromEntries(Object.entries(shown(ask)).map(([kind, list]) => [
  kind, list.exemption ? { exempt: list.exemption.article }
    : list.items.map((item) => ({ id: item.id, required: item.required, maximum: item.maximum, detainable: item.detainable }))])))));
