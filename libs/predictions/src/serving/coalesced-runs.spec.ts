import type { InferenceSession } from 'onnxruntime-node';
import { ONNX_INPUT, ONNX_PROBABILITIES_OUTPUT } from '@foresight/models';
import { CoalescedRuns } from './coalesced-runs';

const WIDTH = 2;

/**
 * A session of width 2 whose positive probability is a row's first feature, as ONNX Runtime's
 * session.run answers (one probabilities tensor of rows × 2); it records the rows of each run.
 */
function recordingSession(fail = false) {
  const runs: number[] = [];
  const session: Pick<InferenceSession, 'run'> = {
    run: async (feeds) => {
      const input = feeds[ONNX_INPUT] as unknown as { data: Float32Array; dims: readonly number[] };
      expect(input.dims).toEqual([input.data.length / WIDTH, WIDTH]);
      runs.push(input.dims[0]);
      if (fail) throw new Error('session refused the input');
      const probabilities = new Float32Array(input.dims[0] * 2);
      for (let row = 0; row < input.dims[0]; row++) {
        probabilities[row * 2 + 1] = input.data[row * WIDTH];
        probabilities[row * 2] = 1 - input.data[row * WIDTH];
      }
      return { [ONNX_PROBABILITIES_OUTPUT]: { data: probabilities } } as unknown as InferenceSession.ReturnType;
    },
  };
  return { session, runs };
}

const rows = (...firsts: number[]) => Float32Array.from(firsts.flatMap((first) => [first, 0.5]));
const positives = (probabilities: Float32Array) => Array.from(probabilities.filter((_, i) => i % 2 === 1));

describe('CoalescedRuns', () => {
  it('runs the rows asked for in one turn of the event loop once, and gives each caller its own rows back', async () => {
    const { session, runs } = recordingSession();
    const coalesced = new CoalescedRuns(session, WIDTH);
    const [one, three, two] = await Promise.all([coalesced.run(rows(0.25), 1), coalesced.run(rows(0.5, 0.75, 1), 3), coalesced.run(rows(0, 0.125), 2)]);
    expect(runs).toEqual([6]);
    expect(positives(one.probabilities)).toEqual([0.25]);
    expect(positives(three.probabilities)).toEqual([0.5, 0.75, 1]);
    expect(positives(two.probabilities)).toEqual([0, 0.125]);
    expect(one.msPerRow).toBe(three.msPerRow);
  });

  it('runs a request alone without waiting for others, and later requests in a run of their own', async () => {
    const { session, runs } = recordingSession();
    const coalesced = new CoalescedRuns(session, WIDTH);
    expect(positives((await coalesced.run(rows(0.5), 1)).probabilities)).toEqual([0.5]);
    expect(positives((await coalesced.run(rows(0.25, 0.75), 2)).probabilities)).toEqual([0.25, 0.75]);
    expect(runs).toEqual([1, 2]);
  });

  it("fails every caller of a run the session refused, and the next run still goes ahead", async () => {
    const failing = new CoalescedRuns(recordingSession(true).session, WIDTH);
    const answers = await Promise.allSettled([failing.run(rows(0.5), 1), failing.run(rows(0.25), 1)]);
    expect(answers.map((answer) => answer.status)).toEqual(['rejected', 'rejected']);
    await expect(failing.run(rows(0.5), 1)).rejects.toThrow('session refused the input');
  });
});
