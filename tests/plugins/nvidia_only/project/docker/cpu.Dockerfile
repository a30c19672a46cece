FROM python:3.10-slim
RUN pip install torch --index-url https://download.pytorch.org/whl/cpu
