/** How a receiver checks a delivery, with the specification's own library (docs/webhooks.md). */
const VERIFY = [
  "import { Webhook } from 'standardwebhooks'; // npm install standardwebhooks",
  '',
  'const webhook = new Webhook(process.env.MNEMO_WEBHOOK_SECRET); // "whsec_…"',
  '// the body exactly as received; throws unless signed with the secret, within 5 minutes',
  'const event = webhook.verify(body, headers); // {type, timestamp, data}',
].join('\n');

/** What an endpoint receives and must answer: the contract in a few lines, under the list. */
export function HowDeliveriesArrive() {
  return (
    <section className="card webhooks-how" aria-labelledby="webhooks-how">
      <h2 id="webhooks-how">How deliveries arrive</h2>
      <dl className="legend webhooks-legend">
        <div>
          <dt>Request</dt>
          <dd>
            A <code>POST</code> with a JSON body, <code>{'{"type", "timestamp", "data"}'}</code>.
          </dd>
        </div>
        <div>
          <dt>Signature</dt>
          <dd>
            Signed by the Standard Webhooks specification (<code>webhook-id</code>,{' '}
            <code>webhook-timestamp</code>, <code>webhook-signature</code>) with the webhook’s
            secret. Its libraries verify it, in JavaScript, Python, Go, Ruby, PHP, Rust, Java and
            more.
          </dd>
        </div>
        <div>
          <dt>Answer</dt>
          <dd>
            Any 2xx within 10 seconds; do the work after answering. Redirects are not followed.
          </dd>
        </div>
        <div>
          <dt>Order</dt>
          <dd>
            Each store’s events arrive in order, at least once: the same <code>webhook-id</code>{' '}
            twice is the same event.
          </dd>
        </div>
        <div>
          <dt>Retries</dt>
          <dd>
            After 5 s, 30 s, 2 min, 10 min, 30 min and 1 h, then every 2 to 4 hours. After 24 hours
            of failures mnemo disables the webhook and keeps what waits until it is enabled again.
          </dd>
        </div>
      </dl>
      <p className="webhooks-how-lead">Verifying a delivery in Node.js:</p>
      {/* A line of code keeps its shape: narrow, it scrolls sideways, by keyboard too. */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus (WCAG 2.1.1). */}
      <pre className="code-block webhooks-code" tabIndex={0}>
        {VERIFY}
      </pre>
    </section>
  );
}
