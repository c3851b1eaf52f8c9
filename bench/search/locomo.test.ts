/**
 * The LoCoMo data as the bench reads it: the turns become memories as they are, and the evidence
 * the bench scores against names turns that exist.
 */
import { describe, expect, test } from 'vitest';
import { foldKey } from '../../src/memory/fold.ts';
import { evidenceIds, LocomoFormatError, loadLocomo, parseLocomo } from './locomo.ts';

describe('evidence entries', () => {
  test('one id, several in one string, a loose form, and none', () => {
    expect(evidenceIds('D3:12')).toEqual({ ids: ['D3:12'], malformed: [] });
    expect(evidenceIds('D8:6; D9:17')).toEqual({ ids: ['D8:6', 'D9:17'], malformed: [] });
    expect(evidenceIds('D1:2,D1:3')).toEqual({ ids: ['D1:2', 'D1:3'], malformed: [] });
    expect(evidenceIds('D:11:26')).toEqual({ ids: ['D11:26'], malformed: [] });
    expect(evidenceIds('D')).toEqual({ ids: [], malformed: ['D'] });
  });
});

const sample = (qa: unknown[]) => ({
  sample_id: 'conv-1',
  conversation: {
    speaker_a: 'Ann',
    speaker_b: 'Bo',
    session_2_date_time: '2:00 pm on 2 May, 2023',
    session_2: [{ speaker: 'Bo', dia_id: 'D2:1', text: 'Back from Oslo.' }],
    session_1_date_time: '1:56 pm on 8 May, 2023',
    session_1: [
      { speaker: 'Ann', dia_id: 'D1:1', text: 'Hi Bo!' },
      {
        speaker: 'Bo',
        dia_id: 'D1:2',
        text: 'Look at this.',
        img_url: ['https://example.test/a.jpg'],
        blip_caption: 'a photo of a dog',
      },
    ],
    // A date with no session: some conversations have them.
    session_3_date_time: '9:00 am on 1 June, 2023',
  },
  qa,
});

describe('parsing', () => {
  test('turns in session order, each `[date] speaker: text`, images left out', () => {
    const { conversations } = parseLocomo([sample([])]);
    expect(conversations[0]?.turns).toEqual([
      { diaId: 'D1:1', content: '[1:56 pm on 8 May, 2023] Ann: Hi Bo!' },
      { diaId: 'D1:2', content: '[1:56 pm on 8 May, 2023] Bo: Look at this.' },
      { diaId: 'D2:1', content: '[2:00 pm on 2 May, 2023] Bo: Back from Oslo.' },
    ]);
  });

  test('evidence split, rewritten or dropped; questions with none and adversarial ones left out', () => {
    const set = parseLocomo([
      sample([
        { question: 'Where?', answer: 'Oslo', evidence: ['D2:1; D1:1', 'D:1:2'], category: 4 },
        { question: 'When?', answer: 'May', evidence: ['D2:1', 'D9:9', 'D', 'D2:1'], category: 2 },
        { question: 'Why?', answer: '', evidence: [], category: 3 },
        { question: 'Who?', answer: 'no', evidence: ['D7:1'], category: 1 },
        { question: 'Really?', adversarial_answer: 'x', evidence: ['D1:1'], category: 5 },
      ]),
    ]);
    expect(set.conversations[0]?.questions).toEqual([
      {
        conversation: 'conv-1',
        index: 0,
        question: 'Where?',
        category: 4,
        evidence: ['D2:1', 'D1:1', 'D1:2'],
      },
      { conversation: 'conv-1', index: 1, question: 'When?', category: 2, evidence: ['D2:1'] },
    ]);
    expect(set.repairs).toEqual({
      split: ['conv-1: "D2:1; D1:1"'],
      rewritten: ['conv-1: "D:1:2"'],
      dropped: ['conv-1: "D9:9"', 'conv-1: "D"', 'conv-1: "D7:1"'],
      questionsDropped: ['conv-1 #2', 'conv-1 #3'],
    });
    expect(set.adversarial).toBe(1);
  });

  test('a shape it does not know is an error, not a smaller set', () => {
    expect(() => parseLocomo({})).toThrow(LocomoFormatError);
    expect(() =>
      parseLocomo([sample([{ question: 'q', evidence: ['D1:1'], category: 6 }])]),
    ).toThrow(/category 6/);
    const undated = sample([]);
    delete (undated.conversation as Record<string, unknown>).session_2_date_time;
    expect(() => parseLocomo([undated])).toThrow(/session_2_date_time/);
  });
});

describe('the development half', () => {
  const set = loadLocomo();
  const questions = set.conversations.flatMap((c) => c.questions);

  test('five conversations, 2,760 turns, 760 questions of categories 1–4', () => {
    expect(set.conversations.map((c) => c.id)).toEqual([
      'conv-26',
      'conv-30',
      'conv-41',
      'conv-42',
      'conv-43',
    ]);
    expect(set.conversations.reduce((n, c) => n + c.turns.length, 0)).toBe(2760);
    const count = (category: number) => questions.filter((q) => q.category === category).length;
    expect([count(1), count(2), count(3), count(4)]).toEqual([142, 156, 44, 418]);
    expect(set.adversarial).toBe(237);
  });

  test('the malformed evidence of the source, and what became of it', () => {
    expect(set.repairs).toEqual({
      split: ['conv-26: "D8:6; D9:17"'],
      rewritten: ['conv-43: "D:11:26"'],
      dropped: ['conv-42: "D10:19"', 'conv-42: "D"'],
      questionsDropped: ['conv-26 #30', 'conv-26 #46'],
    });
  });

  test('no two turns of a conversation fold into one memory when added', () => {
    for (const conversation of set.conversations) {
      const keys = conversation.turns.map((turn) => foldKey(turn.content));
      expect(new Set(keys).size, conversation.id).toBe(keys.length);
    }
  });

  test('every question names evidence turns of its own conversation, once each', () => {
    for (const question of questions) {
      const turns = new Set(
        set.conversations.find((c) => c.id === question.conversation)?.turns.map((t) => t.diaId),
      );
      expect(question.evidence.length).toBeGreaterThan(0);
      expect(new Set(question.evidence).size).toBe(question.evidence.length);
      for (const turn of question.evidence) expect(turns.has(turn), turn).toBe(true);
    }
  });
});
