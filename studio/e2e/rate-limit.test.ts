/**
 * The person's rate budget (here 30 requests a minute) is shared with their own scripts: when
 * the page runs into what a script spent, it waits for the 429's Retry-After without a word,
 * then goes on following the store.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type StudioTest, startStudioTest } from './studio-harness.ts';

let t: StudioTest;
beforeAll(async () => {
  t = await startStudioTest({ env: { MNEMO_RATE_LIMIT_PER_MINUTE: '30' } });
});
afterAll(() => t?.close());

test('a 429 is waited out quietly, and the list goes on updating after it', async () => {
  const member = await t.person({ name: 'Busy Member' });
  await t.api(t.owner.id, 'POST', '/api/v1/memory', {
    content: 'Was there before',
    user: member.id,
  });
  const page = await t.newPage();
  // Remembers whether an alert ever showed, however briefly.
  await page.addInitScript(() => {
    new MutationObserver(() => {
      if (document.querySelector('[role="alert"]')) {
        (window as { alerted?: boolean }).alerted = true;
      }
    }).observe(document, { subtree: true, childList: true });
  });
  const alerted = () => page.evaluate(() => (window as { alerted?: boolean }).alerted === true);
  const limited: number[] = [];
  page.on('response', (response) => {
    if (response.status() === 429) limited.push(Number(response.headers()['retry-after']));
  });
  await t.signIn(page, '/memories', member);
  await page
    .getByRole('list', { name: 'Memories', exact: true })
    .getByText('Was there before')
    .waitFor();
  // The member's own script spends what is left of the budget, until it is refused itself;
  // then the page loads again, into the refusal.
  let refused = false;
  for (let i = 0; i < 60 && !refused; i++) {
    const spent = await t.api(member.id, 'GET', '/api/v1/memory?limit=1');
    refused = spent.status === 429;
  }
  expect(refused).toBe(true);
  await page.reload();
  await page
    .getByRole('list', { name: 'Memories', exact: true })
    .getByText('Was there before')
    .waitFor({ timeout: 110_000 });
  expect(limited.length).toBeGreaterThan(0);
  expect(limited[0]).toBeGreaterThanOrEqual(1);

  // The owner (a budget of their own) adds a memory to the member's store; the page shows it
  // once the wait is over.
  const added = await t.api(t.owner.id, 'POST', '/api/v1/memory', {
    content: 'Arrived after the wait',
    user: member.id,
  });
  expect(added.status).toBe(201);
  await page
    .getByRole('list', { name: 'Memories', exact: true })
    .getByText('Arrived after the wait')
    .waitFor({ timeout: 70_000 });
  // Nothing was said about the wait at any time.
  expect(await alerted()).toBe(false);
}, 240_000);
