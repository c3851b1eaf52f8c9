import { PlugZap } from 'lucide-react';
import { CodeBlock } from '../ui/code-block.tsx';
import { EmptyState } from '../ui/empty-state.tsx';

/** The gateway lists no model (`npm start` without provider keys): how to give it some. */
export function NoModels() {
  return (
    <EmptyState title="No models are configured yet" icon={<PlugZap size={32} />}>
      <p>
        The playground talks to the models of mnemo’s gateway, and this server has none. Give it a
        provider’s key in its environment — <code>OPENAI_API_KEY</code>,{' '}
        <code>ANTHROPIC_API_KEY</code> or <code>GEMINI_API_KEY</code>, each switching on that
        provider’s usual models — or list providers and models in <code>mnemo.config.json</code> (or
        the file named by <code>MNEMO_CONFIG</code>), then restart mnemo.
      </p>
      <CodeBlock>OPENAI_API_KEY=sk-… npm start</CodeBlock>
      <p>docs/configuration.md and docs/gateway.md describe every setting and the file’s format.</p>
    </EmptyState>
  );
}
