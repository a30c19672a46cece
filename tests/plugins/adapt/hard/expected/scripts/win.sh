export ASCEND_RT_VISIBLE_DEVICES=0	# tab before the comment
python crlf_train.py --backend=hccl
