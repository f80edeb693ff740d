"""The batched engine: 1,024 games of Snack Wars at once, player_0 the native heuristic, the others random."""

from snack_envs import batched

venv = batched.make("snack_wars_v0", num_envs=1024, num_players=3, seed=0)
obs, mask, player = venv.reset()  # float32 [B, D], int8 [B, A], the agent to act [B]
wins = games = 0
for _ in range(500):
    actions = venv.random_actions()  # a random legal action per env, native
    bot = player == 0
    actions[bot] = venv.heuristic_actions()[bot]  # the game's bot, native
    obs, mask, player, rewards, terminated, truncated = venv.step(actions)  # rewards [B, n] by agent
    wins += int((rewards[terminated, 0] > 0).sum())
    games += int(terminated.sum())
print(f"heuristic player_0 won {wins} of {games} games")
game = venv.export(0)  # env 0 as a reference Game (rules.py); venv.load(0, game) sets it back
