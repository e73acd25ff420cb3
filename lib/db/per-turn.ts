/**
 * What one piece of work asks in one turn of the event loop, gathered and answered together
 * (DataLoader's batching), never with another's asks (keyed by the work's identity, scope.ts): the
 * reads of a batch's rows planned at once go as one BatchGet (items.ts), their new ids as one ADD a
 * counter (counters.ts). An ask alone in its turn is answered alone, as it would have been.
 */
import { workIdentity } from './scope.js';

interface Asked<Ask, Answer> {
  ask: Ask;
  resolve: (answer: Answer) => void;
  reject: (error: unknown) => void;
}

/**
 * An asker whose asks of one `group` in one turn reach `answerAll` together, in the order asked; it
 * answers each (by position), or fails them all. It runs in the scope of the turn's first ask.
 */
export function gatheredPerTurn<Ask, Answer>(answerAll: (asks: readonly Ask[], group: string) => Promise<readonly Answer[]>): (group: string, ask: Ask) => Promise<Answer> {
  type Turns = Map<string, Asked<Ask, Answer>[]>;
  const turnsByWork = new WeakMap<object, Turns>();

  /** A turn's asks of `group` by `work`, answered once the turn is over. */
  const startTurn = (work: object, turns: Turns, group: string): Asked<Ask, Answer>[] => {
    const gathered: Asked<Ask, Answer>[] = [];
    turns.set(group, gathered);
    setImmediate(async () => {
      turns.delete(group);
      if (!turns.size) turnsByWork.delete(work);
      try {
        const answers = await answerAll(
          gathered.map((asked) => asked.ask),
          group,
        );
        for (const [k, asked] of gathered.entries()) asked.resolve(answers[k] as Answer);
      } catch (error) {
        for (const asked of gathered) asked.reject(error);
      }
    });
    return gathered;
  };

  return (group, ask) => {
    const work = workIdentity();
    const turns = turnsByWork.get(work) ?? new Map();
    turnsByWork.set(work, turns);
    const waiting = turns.get(group) ?? startTurn(work, turns, group);
    return new Promise((resolve, reject) => waiting.push({ ask, resolve, reject }));
  };
}
