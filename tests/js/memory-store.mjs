// A store in memory with the interface of static/js/tablet/store.js, for running the outbox and sync engine under node.

// The device's object stores and their keys, as store.js creates them (null: the key is given to put).
const KEY_PATHS = {
  meta: null, packages: 'id', work: 'id', answers: ['inspection_id', 'item_id'], photos: 'client_id', outbox: 'seq',
};
const AUTO_INCREMENT = new Set(['outbox']);
const INDEXED = new Set(['answers', 'photos', 'outbox']);  // each has a `by_inspection` index

function compareKeys(a, b) {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
      const c = compareKeys(a[i], b[i]);
      if (c) return c;
    }
    return a.length - b.length;
  }
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : (String(a) > String(b) ? 1 : 0);
}

/** A fresh, empty store. Values are copied in and out, as IndexedDB does (structured clone). */
export function memoryStore() {
  const data = new Map(Object.keys(KEY_PATHS).map((name) => [name, new Map()]));
  const counters = new Map([...AUTO_INCREMENT].map((name) => [name, 0]));
  const table = (name) => {
    if (!data.has(name)) throw new Error(`no object store ${name}`);
    return data.get(name);
  };
  const keyOf = (name, value, key) => {
    const path = KEY_PATHS[name];
    if (path === null) return key;
    if (Array.isArray(path)) return path.map((p) => value[p]);
    return value[path];
  };
  const id = (key) => JSON.stringify(key);

  function getSync(name, key) {
    const found = table(name).get(id(key));
    return found === undefined ? undefined : structuredClone(found.value);
  }
  function putSync(name, value, key) {
    const copy = structuredClone(value);
    let primary = keyOf(name, copy, key);
    if ((primary === undefined || primary === null) && AUTO_INCREMENT.has(name)) {
      primary = counters.get(name) + 1;
      copy[KEY_PATHS[name]] = primary;
    }
    if (primary === undefined || primary === null) throw new Error(`no key for ${name}`);
    if (AUTO_INCREMENT.has(name) && typeof primary === 'number') counters.set(name, Math.max(counters.get(name), primary));
    table(name).set(id(primary), { key: primary, value: copy });
    return primary;
  }
  function delSync(name, key) { table(name).delete(id(key)); }
  function allSync(name) {
    return [...table(name).values()].sort((a, b) => compareKeys(a.key, b.key)).map((r) => structuredClone(r.value));
  }
  function byInspectionSync(name, inspectionId) {
    if (!INDEXED.has(name)) throw new Error(`${name} has no by_inspection index`);
    return allSync(name).filter((v) => v.inspection_id === inspectionId);
  }

  const store = {
    get: async (name, key) => getSync(name, key),
    put: async (name, value, key) => putSync(name, value, key),
    del: async (name, key) => delSync(name, key),
    all: async (name) => allSync(name),
    byInspection: async (name, inspectionId) => byInspectionSync(name, inspectionId),
    /** All of `fn(tx)`'s writes land or none: a throw puts the touched stores back as they were. */
    async transact(names, fn) {
      const saved = names.map((name) => [name, new Map(table(name))]);
      const tx = {
        objectStore(name) {
          if (!names.includes(name)) throw new Error(`${name} is not in this transaction`);
          return {
            get: async (key) => getSync(name, key),
            put: (value, key) => Promise.resolve(putSync(name, value, key)),
            delete: (key) => Promise.resolve(delSync(name, key)),
            index: (index) => (index === 'by_item' ? {  // outbox: [inspection_id, type, item_id], the first match
              get: async ([inspectionId, type, itemId]) => byInspectionSync(name, inspectionId)
                .find((v) => v.type === type && v.item_id === itemId),
            } : { getAll: async (inspectionId) => byInspectionSync(name, inspectionId) }),
          };
        },
      };
      try {
        return await fn(tx);
      } catch (error) {
        saved.forEach(([name, copy]) => data.set(name, copy));
        throw error;
      }
    },
    /** Every value of every store (for assertions). */
    dump: () => Object.fromEntries([...data.keys()].map((name) => [name, allSync(name)])),
  };
  return store;
}
