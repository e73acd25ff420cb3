/**
 * Whether a unit test file works on a table of its own (test/support/table-per-file.ts makes one
 * for every other file). A unit test of a pure module needs none, and making one (the reference
 * data, the seeded rules, the migrations) took about 3 s of each such file's worker: a file whose
 * code reads or writes DynamoDB Local says so by calling `useTable()` where it loads.
 */
let wanted = false;

export const useTable = (): void => {
  wanted = true;
};

export const tableWanted = (): boolean => wanted;
