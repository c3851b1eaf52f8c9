import { type Command, onStore } from './command.ts';

export const keysRotate: Command = {
  path: ['admin', 'keys', 'rotate'],
  usage: 'mnemo admin keys rotate',
  summary:
    'add a new RS256 signing key: every server signs with it within seconds; older keys stay published until their tokens expired',
  options: [],
  prepare: () =>
    onStore(async ({ database }) => {
      const { rotateSigningKey } = await import('../credentials/index.ts');
      const kid = await rotateSigningKey(database.db);
      return {
        json: { kid },
        text: `new signing key ${kid}: servers sign with it within seconds; older keys stay published until their last tokens expired`,
      };
    }),
};
