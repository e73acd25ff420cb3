/**
 * Whether a unit test file works on a table of its own (test/support/table-per-file.ts makes one
 * for every other file). A unit test of a pure module needs none, and making one (its reference
 * data and seeded rules) and loading the API's modules for it cost each such file's worker for
 * nothing: a file whose code reads or writes DynamoDB Local says so by calling `useTable()` where it
 * loads.
 */
let wanted = false;

export const useTable = (): void => {
  wanted = true;
};

export const tableWanted = (): boolean => wanted;
