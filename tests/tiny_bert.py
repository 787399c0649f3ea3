"""A tiny BERT and its tokenizer, made on the spot from a config (nothing downloaded); the
same tokenizer under a tiny XLM-R or DeBERTa-v2 stands for the other encoders users give."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def make_tiny_bert(folder: Path, texts: Sequence[str], architecture: str = "bert") -> Path:
    import transformers
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=False)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.train_from_iterator(
        texts, trainers.WordPieceTrainer(vocab_size=400, special_tokens=specials)
    )
    tokenizer.post_processor = processors.BertProcessing(
        ("[SEP]", tokenizer.token_to_id("[SEP]")), ("[CLS]", tokenizer.token_to_id("[CLS]"))
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        model_max_length=128,
    )
    folder.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(folder)
    config_class, model_class = {
        "bert": ("BertConfig", "BertModel"),
        "xlm-roberta": ("XLMRobertaConfig", "XLMRobertaModel"),
        "deberta-v2": ("DebertaV2Config", "DebertaV2Model"),
    }[architecture]
    config = getattr(transformers, config_class)(
        vocab_size=tokenizer.get_vocab_size(),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        # XLM-R counts positions from its padding id + 1.
        max_position_embeddings=130,
        pad_token_id=tokenizer.token_to_id("[PAD]"),
    )
    getattr(transformers, model_class)(config).save_pretrained(folder)
    return folder
