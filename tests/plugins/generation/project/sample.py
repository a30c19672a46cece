"""Fixture: host syncs in step-by-step generation, whose next input is the value read."""
import torch


def sample_rnn(net, vocab, steps, device, out):
    token = torch.zeros((1, 1), dtype=torch.long).to(device)
    state = net.init_state(1)
    with torch.no_grad():
        for step in range(steps):
            logits, state = net(token, state)
            probs = logits.squeeze().softmax(-1).cpu()
            picked = torch.multinomial(probs, 1)[0]
            token.fill_(picked)
            out.write(vocab[picked] + " ")


def grow(net, prompt, steps, device):
    seq = prompt.to(device)
    with torch.no_grad():
        for step in range(steps):
            logits = net(seq)
            nxt = logits[-1].argmax().item()
            step_tensor = torch.tensor([[nxt]]).to(device)
            seq = torch.cat([seq, step_tensor], 0)
    return seq


def greedy(net, start, steps, device):
    tokens = [start]
    for step in range(steps):
        scores = net(torch.tensor(tokens, device=device))
        tokens.append(scores[-1].argmax().item())
    return tokens


def train(net, batches, opt):
    total = 0.0
    seen = 0
    for x, y in batches:
        loss = net(x, y)
        loss.backward()
        opt.step()
        value = loss.item()
        total += value
        seen = seen + 1
    return total / seen


class Balance:
    def weigh(self, parts):
        total = 0
        for i, p in enumerate(parts):
            part = self.crit(p)
            total = total + part * self.weights[i]
            self.weights[i] = self.weights[i] * 0.9 + 0.1 / part.item()
        return total
